//! `kura completions SHELL` and `kura man [VERB]`: made from the same clap
//! definitions as `--help` (src/cli.rs), so they cannot drift from it.

use anyhow::{Result, bail};
use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::report::emit;

pub fn completions(args: CompletionsArgs) -> Result<i32> {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "kura", &mut out);
    emit(&String::from_utf8_lossy(&out))?;
    Ok(0)
}

pub fn man(args: ManArgs) -> Result<i32> {
    let mut cmd = Cli::command();
    cmd.build();
    let mut page = cmd;
    let mut name = vec!["kura".to_string()];
    for verb in &args.verb {
        let Some(sub) = page.find_subcommand(verb).cloned() else {
            bail!("man: '{}' is not a verb of `{}`", verb, name.join(" "));
        };
        name.push(verb.clone());
        // build() gave it the display name `kura-suite-tiobench`, the page's title.
        page = sub;
    }
    let mut out = Vec::new();
    clap_mangen::Man::new(page).render(&mut out)?;
    emit(&String::from_utf8_lossy(&out))?;
    Ok(0)
}
