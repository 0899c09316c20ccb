//! One source of every default: the `Default` of each group of flags is what clap
//! parses from an empty command line (each flag's `default_value_t`), the environment
//! ignored, so that tests and the load test run with the defaults of `sannin serve`
//! whatever `SANNIN_*` variables are set.

use clap::{Args, Command, FromArgMatches};

use super::{
    AccountArgs, BotArgs, ChatArgs, ClientArgs, ConnectionArgs, LimitArgs, RoomArgs, ServeArgs,
    StorageArgs, WorkArgs,
};
use crate::accounts::mail::MailArgs;
use crate::cluster::ClusterArgs;
use crate::push::PushArgs;
use crate::review::ReviewArgs;

/// The command of the flags of `T` alone, none of them read from the environment.
fn command_without_env<T: Args>() -> Command {
    T::augment_args(Command::new("defaults")).mut_args(|a| a.env(None))
}

/// `T` as clap parses it from no flags and no environment.
fn parsed_defaults<T: Args + FromArgMatches>() -> T {
    let matches = command_without_env::<T>()
        .try_get_matches_from(["defaults"])
        .unwrap_or_else(|e| panic!("the defaults of the flags do not parse: {e}"));
    T::from_arg_matches(&matches)
        .unwrap_or_else(|e| panic!("the defaults of the flags do not parse: {e}"))
}

macro_rules! defaults_of_the_flags {
    ($($group:ty),* $(,)?) => {$(
        impl Default for $group {
            /// The defaults of the flags (the environment is not read).
            fn default() -> Self {
                parsed_defaults()
            }
        }
    )*};
}

defaults_of_the_flags!(
    ServeArgs,
    LimitArgs,
    StorageArgs,
    RoomArgs,
    ChatArgs,
    BotArgs,
    ConnectionArgs,
    ClientArgs,
    WorkArgs,
    AccountArgs,
    ClusterArgs,
    PushArgs,
    MailArgs,
    ReviewArgs,
);

#[cfg(test)]
mod tests {
    use super::*;

    /// `sannin serve` with no flags and no environment.
    fn serve_without_flags() -> ServeArgs {
        let matches = command_without_env::<ServeArgs>()
            .try_get_matches_from(["serve"])
            .unwrap();
        ServeArgs::from_arg_matches(&matches).unwrap()
    }

    #[test]
    fn each_group_defaults_to_what_serve_parses_without_flags() {
        let serve = serve_without_flags();
        let limits = &serve.limits;
        assert_eq!(StorageArgs::default(), serve.storage);
        assert_eq!(RoomArgs::default(), limits.rooms);
        assert_eq!(ChatArgs::default(), limits.chat);
        assert_eq!(BotArgs::default(), limits.bots);
        assert_eq!(ConnectionArgs::default(), limits.connections);
        assert_eq!(ClientArgs::default(), limits.clients);
        assert_eq!(WorkArgs::default(), limits.work);
        assert_eq!(AccountArgs::default(), limits.accounts);
        assert_eq!(LimitArgs::default(), serve.limits);
        assert_eq!(ClusterArgs::default(), serve.cluster);
        assert_eq!(PushArgs::default(), serve.push);
        assert_eq!(MailArgs::default(), serve.mail);
        assert_eq!(ReviewArgs::default(), serve.review);
        assert_eq!(ServeArgs::default(), serve);
        // A few by value, as `--help` prints them.
        assert_eq!(RoomArgs::default().grace_seconds, 120.0);
        assert_eq!(ClusterArgs::default().nats_prefix, "sannin");
        assert_eq!(MailArgs::default().mail_from, "noreply@localhost");
        assert_eq!(ReviewArgs::default().review_nodes, 60_000);
    }

    #[test]
    fn the_defaults_do_not_read_the_environment() {
        let read = |cmd: &Command| {
            cmd.get_arguments()
                .filter(|a| a.get_env().is_some())
                .count()
        };
        let serve = ServeArgs::augment_args(Command::new("serve"));
        let flags = serve.get_arguments().count();
        assert_eq!(read(&serve), flags, "every flag has its variable");
        let without = command_without_env::<ServeArgs>();
        assert_eq!(without.get_arguments().count(), flags);
        assert_eq!(read(&without), 0, "the defaults read no variable");
    }
}
