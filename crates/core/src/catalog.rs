//! Catalog of well-known models (filled in the next commit).
