//! `sannin admin`: what a site's admin does against the configured database, the
//! server running or not. For now: a link to set a new password for an account whose
//! owner cannot use the mail (docs/accounts.md, "E-mail and a forgotten password").

use std::process::ExitCode;

use anyhow::Context as _;
use sannin_server::accounts::db::Db;
use sannin_server::accounts::recovery::Purpose;
use sannin_server::Store;

/// The admin's commands.
#[derive(clap::Args)]
pub struct AdminArgs {
    /// The database, as `sannin serve` is given it.
    #[arg(long, env = "DATABASE_URL", default_value = sannin_server::DEFAULT_SQLITE_URL)]
    database_url: String,

    #[command(subcommand)]
    command: AdminCommand,
}

#[derive(clap::Subcommand)]
enum AdminCommand {
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
        match args.command {
            AdminCommand::ResetPassword { name, public_url } => {
                let Some(account) = db.by_name(&name).await? else {
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
        }
    })
}
