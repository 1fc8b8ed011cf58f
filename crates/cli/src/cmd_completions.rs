//! `vramfit completions SHELL` and `vramfit man`: shell completions and man
//! pages, generated from the same clap definition as the commands
//! (`vramfit completions bash > /etc/bash_completion.d/vramfit`,
//! `vramfit man > vramfit.1`, `vramfit man --out-dir man1/`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap_complete::Shell;

use crate::output::fail;

#[derive(clap::Args)]
pub struct Args {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_name = "SHELL")]
    pub shell: Shell,
}

#[derive(clap::Args)]
pub struct ManArgs {
    /// The page of one command (`vramfit man check`); default: the main page.
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
    /// Write every page (vramfit.1, vramfit-check.1, ...) into this directory
    /// (made if missing).
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub out_dir: Option<PathBuf>,
}

pub fn completions(args: &Args, mut cli: clap::Command) -> ExitCode {
    let name = cli.get_name().to_owned();
    clap_complete::generate(args.shell, &mut cli, name, &mut std::io::stdout());
    ExitCode::SUCCESS
}

/// A man page in roff on stdout, or every page into a directory.
pub fn man(args: &ManArgs, cli: clap::Command) -> ExitCode {
    if let Some(dir) = &args.out_dir {
        return match std::fs::create_dir_all(dir).and_then(|()| clap_mangen::generate_to(cli, dir))
        {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => fail(format!("--out-dir {}: {error}", dir.display())),
        };
    }
    // Built, the subcommands carry their page names (`vramfit-check`).
    let mut cli = cli.disable_help_subcommand(true);
    cli.build();
    let page = match &args.command {
        None => cli,
        Some(name) => match cli.find_subcommand(name) {
            Some(command) => command.clone(),
            None => return fail(format!("man: no command \"{name}\" (see `vramfit --help`)")),
        },
    };
    match clap_mangen::Man::new(page).render(&mut std::io::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => fail(format!("cannot write the man page: {error}")),
    }
}
