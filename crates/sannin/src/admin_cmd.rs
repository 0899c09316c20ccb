//! `sannin admin`: what a site's admin does against the configured database, the
//! server running or not: roles, bans, mutes, renames, deleting an account, the open
//! reports and the log (docs/moderation.md), and a link to set a new password for an
//! account whose owner cannot use the mail (docs/accounts.md). Every change is logged
//! like a moderator's action on `/mod`, by `command line`; a running server acts on a
//! ban or a mute within seconds.

use std::process::ExitCode;

use anyhow::Context as _;
use sannin_server::accounts::recovery::Purpose;
use sannin_server::accounts::store::Db;
use sannin_server::moderation::actions::{self, ActionRequest};
use sannin_server::moderation::store::ModDb;
use sannin_server::moderation::ModError;
use sannin_server::moderation::{reports, Role};
use sannin_server::Store;

/// Who the log says acted.
const BY: &str = "command line";

/// The admin's commands.
#[derive(clap::Args)]
pub struct AdminArgs {
    /// The database, as `sannin serve` is given it (before or after the command).
    #[arg(
        long,
        global = true,
        env = "DATABASE_URL",
        default_value = sannin_server::DEFAULT_SQLITE_URL
    )]
    database_url: String,

    #[command(subcommand)]
    command: AdminCommand,
}

/// An account, or an address range, and why.
#[derive(clap::Args)]
struct Whom {
    /// The account's name.
    #[arg(required_unless_present = "addr")]
    name: Option<String>,
    /// An address or a CIDR range instead of an account.
    #[arg(long, conflicts_with = "name")]
    addr: Option<String>,
    /// Why (logged).
    #[arg(long, default_value = "given on the command line")]
    reason: String,
}

#[derive(clap::Subcommand)]
enum AdminCommand {
    /// The moderators' actions.
    #[command(flatten)]
    Moderate(ModCommand),
    /// Print the open reports, newest first.
    Reports,
    /// Print the moderators' log, newest first.
    Log,
    /// Print a link (it works once, for an hour) that sets a new password for the
    /// account NAME; hand it to its owner. The password stays as it is until then.
    ResetPassword {
        /// The account's name (any case).
        name: String,
        /// The site's address, to print the whole link (else its path only).
        #[arg(long, env = "SANNIN_PUBLIC_URL")]
        public_url: Option<String>,
    },
}

/// What a moderator does on `/mod` (logged alike).
#[derive(clap::Subcommand)]
enum ModCommand {
    /// Give the account NAME a role: player, moderator or admin.
    Role {
        /// The account's name.
        name: String,
        /// player, moderator or admin.
        role: Role,
        /// Why (logged).
        #[arg(long, default_value = "given on the command line")]
        reason: String,
    },
    /// Ban an account or an address range: no seat, no chat, no rooms, no pools.
    Ban {
        #[command(flatten)]
        whom: Whom,
        /// For how long; leave out for until lifted.
        #[arg(long)]
        minutes: Option<u64>,
    },
    /// Lift the bans in force of an account or an address range.
    Unban {
        #[command(flatten)]
        whom: Whom,
    },
    /// Mute an account or an address range: its chat reaches nobody but itself.
    Mute {
        #[command(flatten)]
        whom: Whom,
        /// For how long; leave out for until lifted.
        #[arg(long)]
        minutes: Option<u64>,
    },
    /// Lift the mutes in force of an account or an address range.
    Unmute {
        #[command(flatten)]
        whom: Whom,
    },
    /// Rename the account NAME (its games and chat lines follow).
    Rename {
        /// The account's name.
        name: String,
        /// The new name (the name rules apply).
        new_name: String,
        /// Why (logged).
        #[arg(long, default_value = "given on the command line")]
        reason: String,
    },
    /// Delete the account NAME and its personal data; its games stay, anonymised.
    DeleteAccount {
        /// The account's name.
        name: String,
        /// Why (logged).
        #[arg(long, default_value = "given on the command line")]
        reason: String,
    },
}

impl ModCommand {
    /// The action, as `/mod` would send it.
    fn action(&self) -> ActionRequest {
        let whom = |action: &str, w: &Whom, minutes: Option<u64>| ActionRequest {
            action: action.into(),
            account: w.name.clone(),
            addr: w.addr.clone(),
            minutes,
            reason: w.reason.clone(),
            ..ActionRequest::default()
        };
        let named = |action: &str, name: &str, reason: &str| ActionRequest {
            action: action.into(),
            account: Some(name.into()),
            reason: reason.into(),
            ..ActionRequest::default()
        };
        match self {
            ModCommand::Ban { whom: w, minutes } => whom("ban", w, *minutes),
            ModCommand::Unban { whom: w } => whom("unban", w, None),
            ModCommand::Mute { whom: w, minutes } => whom("mute", w, *minutes),
            ModCommand::Unmute { whom: w } => whom("unmute", w, None),
            ModCommand::Role { name, role, reason } => ActionRequest {
                role: Some(*role),
                ..named("role", name, reason)
            },
            ModCommand::Rename {
                name,
                new_name,
                reason,
            } => ActionRequest {
                new_name: Some(new_name.clone()),
                ..named("rename", name, reason)
            },
            ModCommand::DeleteAccount { name, reason } => named("delete", name, reason),
        }
    }
}

/// Runs an admin command.
///
/// # Errors
/// An unreachable database.
pub fn admin(args: AdminArgs) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let store = Store::connect(&args.database_url, 1).await?;
        let db = Db::new(&store);
        let m = ModDb::new(&store);
        match args.command {
            AdminCommand::Moderate(command) => {
                match actions::apply(&m, &db, BY, Role::Admin, command.action()).await {
                    Ok(entry) => {
                        println!("{} {}: {}", entry.action, entry.target, entry.reason);
                        Ok(ExitCode::SUCCESS)
                    }
                    Err(ModError::Internal(e)) => Err(e),
                    Err(e) => {
                        eprintln!("{e}");
                        Ok(ExitCode::FAILURE)
                    }
                }
            }
            AdminCommand::Reports => {
                for r in reports::list(&m, true, 200).await? {
                    println!("{}", serde_json::to_string(&r)?);
                }
                Ok(ExitCode::SUCCESS)
            }
            AdminCommand::Log => {
                for e in m.log_entries(200).await? {
                    println!("{}", serde_json::to_string(&e)?);
                }
                Ok(ExitCode::SUCCESS)
            }
            AdminCommand::ResetPassword { name, public_url } => {
                reset_password(&db, &name, public_url).await
            }
        }
    })
}

async fn reset_password(
    db: &Db,
    name: &str,
    public_url: Option<String>,
) -> anyhow::Result<ExitCode> {
    let Some(account) = db.by_name(name).await? else {
        eprintln!("no account is named {name:?}");
        return Ok(ExitCode::FAILURE);
    };
    let token = db
        .create_link(&account.id, Purpose::ResetPassword, None)
        .await
        .context("storing the link")?;
    let base = public_url.unwrap_or_default();
    println!(
        "{}/account/reset?token={token}",
        base.trim().trim_end_matches('/')
    );
    Ok(ExitCode::SUCCESS)
}
