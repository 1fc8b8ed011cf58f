//! The breakdown as it is written: the GPU's lines and the CPU's.

use crate::report::Line;

#[derive(Default)]
pub(super) struct Lines {
    pub(super) gpu: Vec<Line>,
    pub(super) cpu: Vec<Line>,
}

impl Lines {
    pub(super) fn place(&mut self, line: Line, on_cpu: bool) {
        if on_cpu {
            self.cpu.push(line);
        } else {
            self.gpu.push(line);
        }
    }
}
