//! TensorFlow names the tensor it could not allocate, not its size:
//! `OOM when allocating tensor with shape[16,112,112,147] and type float`.
//! The request is the product of the shape times the element size.

/// Element sizes of TensorFlow's dtype names (`DataTypeString`), in bytes.
const DTYPE_BYTES: [(&str, u64); 14] = [
    ("float", 4),
    ("double", 8),
    ("half", 2),
    ("bfloat16", 2),
    ("float16", 2),
    ("int8", 1),
    ("uint8", 1),
    ("int16", 2),
    ("int32", 4),
    ("int64", 8),
    ("bool", 1),
    ("complex64", 8),
    ("complex128", 16),
    ("qint8", 1),
];

/// Most dimensions read: TensorFlow tensors have at most 254.
const MAX_DIMS: usize = 254;

/// Bytes of the tensor named in `window` (lowercase): `shape[a,b,...]` or
/// `shape [a,b]`, then `type <dtype>`. `None` if either is missing.
pub fn tensor_bytes(window: &str) -> Option<u64> {
    let at = window.find("allocating tensor")?;
    let rest = window.get(at..)?;
    let open = rest.find("shape")? + "shape".len();
    let dims_text = rest.get(open..)?.trim_start().strip_prefix('[')?;
    let close = dims_text.find(']')?;
    let mut elements: u64 = 1;
    let dims = dims_text.get(..close)?.trim();
    // `shape[]` is a scalar: one element
    for dim in dims.split(',').filter(|_| !dims.is_empty()).take(MAX_DIMS) {
        let dim: u64 = dim.trim().parse().ok()?;
        elements = elements.checked_mul(dim)?;
    }
    let after_dims = dims_text.get(close..)?;
    let type_at = after_dims.find("type ")? + "type ".len();
    let dtype: String = after_dims
        .get(type_at..)?
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect();
    let element = DTYPE_BYTES
        .iter()
        .find(|(name, _)| *name == dtype)
        .map(|(_, bytes)| *bytes)?;
    elements.checked_mul(element)
}

#[cfg(test)]
mod tests {
    use super::tensor_bytes;

    #[test]
    fn shape_times_dtype() {
        // 16·112·112·147 = 29,503,488 floats × 4 B
        assert_eq!(
            tensor_bytes("oom when allocating tensor with shape[16,112,112,147] and type float on /job:localhost"),
            Some(118_013_952)
        );
        // the older wording: `tensor of shape [563354,256]`
        assert_eq!(
            tensor_bytes("oom when allocating tensor of shape [563354,256] and type half"),
            Some(563_354 * 256 * 2)
        );
        assert_eq!(
            tensor_bytes("oom when allocating tensor with shape[] and type float"),
            Some(4)
        );
        assert_eq!(
            tensor_bytes("oom when allocating tensor with shape[a] and type float"),
            None
        );
        assert_eq!(
            tensor_bytes("oom when allocating tensor with shape[2] and type qux"),
            None
        );
    }
}
