//! Running the built `vramfit` binary as a user would, for every CLI test.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `vramfit args`, with `stdin` on its standard input (empty if `None`).
pub fn vramfit_with_stdin(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vramfit"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the vramfit binary runs");
    let mut input = child.stdin.take().expect("stdin");
    // A command that rejects its arguments exits before reading stdin;
    // the closed pipe is then expected, not a failure.
    if let Err(error) = input.write_all(stdin.unwrap_or_default().as_bytes()) {
        assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe, "write stdin");
    }
    drop(input);
    child.wait_with_output().expect("vramfit finishes")
}

/// Its standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Its standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
