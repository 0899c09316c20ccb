//! The `sannin` command (docs/cli.md): a thin front over the workspace's crates.

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod admin_cmd;
mod analyse_cmd;
mod bot_cmd;
mod healthcheck;
mod rules_cmd;
mod selfplay_cmd;

#[derive(Parser)]
#[command(
    name = "sannin",
    version,
    about = "Sannin shogi: three-player hexagonal shogi server and tools"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count legal action sequences of length DEPTH (the last line is the total).
    Perft(rules_cmd::PerftArgs),
    /// List the legal actions of the player to move, one canonical action per line.
    Moves(rules_cmd::MovesArgs),
    /// Play a game record and print each action and the final position.
    Replay(rules_cmd::ReplayArgs),
    /// Run the game server: HTTP API, WebSocket rooms, browser client (docs/protocol.md).
    Serve(Box<sannin_server::ServeArgs>),
    /// Play many rooms at once over loopback; report actions/s, latency, memory per room.
    Loadtest(sannin_loadtest::LoadtestArgs),
    /// A bare relay of the room protocol (no rules, no storage, no clocks): the floor
    /// `sannin loadtest --baseline` compares the server with.
    Relay(sannin_loadtest::relay::RelayArgs),
    /// Exit 0 if the server on this machine answers GET /healthz with 200 (for Docker).
    Healthcheck(healthcheck::HealthcheckArgs),
    /// Bots against bots: play games, report wins per level and per seat, time per move,
    /// and a rating ladder (the last line is a JSON summary).
    Selfplay(selfplay_cmd::SelfplayArgs),
    /// Play in a server room as a computer player (WebSocket protocol, docs/protocol.md).
    Bot(bot_cmd::BotArgs),
    /// The best action for the player to move, the line the search expects and each
    /// player's evaluation (the bots' search on a time budget).
    Analyse(analyse_cmd::AnalyseArgs),
    /// A site admin's commands against the database: roles, bans, mutes, renames,
    /// deleting accounts, reports, the log, a link to reset a password.
    Admin(admin_cmd::AdminArgs),
}

/// `command` with the environment variables of its options (and its subcommands')
/// that are set but empty left unread: an empty value means the default, as
/// `.env.example` says (`SANNIN_GRACE_SECONDS=` in an env file, a unit or a shell).
fn empty_env_means_default(mut command: clap::Command) -> clap::Command {
    let blank: Vec<clap::Id> = command
        .get_arguments()
        .filter(|a| {
            a.get_env()
                .and_then(std::env::var_os)
                .is_some_and(|v| v.is_empty())
        })
        .map(|a| a.get_id().clone())
        .collect();
    for id in blank {
        command = command.mut_arg(id, |a| a.env(None));
    }
    let subcommands: Vec<String> = command
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in subcommands {
        command = command.mut_subcommand(name, empty_env_means_default);
    }
    command
}

fn main() -> ExitCode {
    let matches = empty_env_means_default(Cli::command()).get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        Command::Perft(args) => rules_cmd::perft(args),
        Command::Moves(args) => rules_cmd::moves(args),
        Command::Replay(args) => rules_cmd::replay(args),
        Command::Serve(args) => sannin_server::serve_blocking(*args).map(|()| ExitCode::SUCCESS),
        Command::Loadtest(args) => sannin_loadtest::run_blocking(args).map(|()| ExitCode::SUCCESS),
        Command::Relay(args) => {
            sannin_loadtest::relay::run_blocking(args).map(|()| ExitCode::SUCCESS)
        }
        Command::Healthcheck(args) => healthcheck::run(args),
        Command::Selfplay(args) => selfplay_cmd::selfplay(args),
        Command::Bot(args) => bot_cmd::bot(args),
        Command::Analyse(args) => analyse_cmd::analyse(args),
        Command::Admin(args) => admin_cmd::admin(args),
    };
    match result {
        Ok(code) => code,
        // A closed pipe (`sannin moves | head`) is not an error.
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
