//! A job's declared parameters as command-line flags (issue 53): one flag
//! per entry of the job's table (`rarity::job::declared`), its long name
//! the parameter's in kebab case, its help the declaration's doc with what
//! is accepted and the default (a required parameter a required flag, a
//! `bool` a switch: `--standardise`). The values are kept as given and read by
//! the library ([`rarity::job::declared::read`]), as Python's are.

use std::marker::PhantomData;

use clap::{Arg, ArgAction, ArgMatches, Command, FromArgMatches};

use rarity::error::Result;
use rarity::job::declared::{self, Declared};
use rarity::job::Front;
use rarity::params::{ParamInfo, Params};

/// The flags of one declared job, flattened into its subcommand's
/// arguments; `P` is the job's parameter struct.
#[derive(Debug, Clone)]
pub struct Flags<P> {
    /// `(name, text)` of each flag given.
    given: Vec<(String, String)>,
    job: PhantomData<P>,
}

/// Which declared job a parameter struct belongs to.
pub trait Job: Params + Default + 'static {
    /// Its declaration.
    const DECLARED: Declared;
}

impl Job for rarity::job::monitor::MonitorParams {
    const DECLARED: Declared = rarity::job::monitor::DECLARED;
}

impl Job for rarity::job::explain::ExplainParams {
    const DECLARED: Declared = rarity::job::explain::DECLARED;
}

impl Job for rarity::job::resample::ResampleParams {
    const DECLARED: Declared = rarity::job::resample::DECLARED;
}

impl Job for rarity::job::select::SelectParams {
    const DECLARED: Declared = rarity::job::select::DECLARED;
}

/// Whether a parameter is a switch on the command line (`--standardise`,
/// not `--standardise true`): a `bool` that is off unless given (one on by
/// default takes `--name false`).
fn is_switch(i: &ParamInfo) -> bool {
    i.expected == "true or false" && i.default == "false"
}

impl<P: Job> Flags<P> {
    /// The job's parameters, read and checked by the library.
    pub fn params(&self) -> Result<P> {
        declared::read(&P::DECLARED, &self.given, Front::Cli)
    }
}

impl<P: Job> clap::Args for Flags<P> {
    fn augment_args(mut cmd: Command) -> Command {
        for i in (P::DECLARED.table)() {
            let doc = i.doc.trim_end_matches('.');
            let required = P::DECLARED.required.contains(&i.name);
            let arg = Arg::new(i.name).long(i.name.replace('_', "-"));
            cmd = cmd.arg(match (is_switch(&i), required) {
                // A switch: given means true.
                (true, _) => arg
                    .action(ArgAction::SetTrue)
                    .help(format!("{doc} (a switch)")),
                (false, true) => arg
                    .value_name(i.name.to_uppercase())
                    .action(ArgAction::Set)
                    .required(true)
                    .help(format!("{doc} ({}; required)", i.expected)),
                (false, false) => arg
                    .value_name(i.name.to_uppercase())
                    .action(ArgAction::Set)
                    .help(format!("{doc} ({}; default {})", i.expected, i.default)),
            });
        }
        cmd
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl<P: Job> FromArgMatches for Flags<P> {
    fn from_arg_matches(m: &ArgMatches) -> std::result::Result<Self, clap::Error> {
        let mut f = Flags {
            given: Vec::new(),
            job: PhantomData,
        };
        f.update_from_arg_matches(m)?;
        Ok(f)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> std::result::Result<(), clap::Error> {
        for i in (P::DECLARED.table)() {
            let text = match is_switch(&i) {
                true => m.get_flag(i.name).then(|| "true".to_string()),
                false => m.get_one::<String>(i.name).cloned(),
            };
            if let Some(v) = text {
                self.given.retain(|(k, _)| k != i.name);
                self.given.push((i.name.to_string(), v));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use rarity::job::JOBS;

    /// Each declared job's subcommand has exactly the declared flags and
    /// its own (`cli_only`): a flag added or dropped by hand fails here.
    #[test]
    fn every_declared_jobs_flags_are_its_declaration() {
        let cli = super::super::Cli::command();
        for d in JOBS {
            let sub = cli
                .find_subcommand(d.job)
                .unwrap_or_else(|| panic!("no subcommand {}", d.job));
            let mut flags: Vec<String> = (sub.get_arguments())
                .filter(|a| !a.is_global_set())
                .filter_map(|a| a.get_long().map(str::to_string))
                .filter(|l| l != "help")
                .collect();
            let mut want: Vec<String> = ((d.table)().iter())
                .map(|i| i.name.replace('_', "-"))
                .chain(d.cli_only.iter().map(|s| s.to_string()))
                .collect();
            flags.sort();
            want.sort();
            assert_eq!(flags, want, "rarity {}", d.job);
        }
    }
}
