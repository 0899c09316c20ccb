//! What a moderator does — ban, unban, mute, unmute, rename, delete an account, give a
//! role, close a report — through one function for `/mod` and for `sannin admin`, each
//! action logged with who took it and why.

use ipnet::IpNet;
use serde::Deserialize;
use serde_json::json;

use super::store::{LogEntry, ModDb, Target};
use super::ModError;
use super::{Role, SanctionKind, DELETED_NAME};
use crate::accounts::names;
use crate::accounts::store::Db;
use crate::store::column::Named as _;
use crate::store::unix_ms;

/// The longest reason, in characters.
pub const MAX_REASON: usize = 500;

/// The longest sanction: ten years (longer: until lifted).
const MAX_MINUTES: u64 = 10 * 366 * 1440;

/// The body of `POST /api/mod/actions`, and what `sannin admin` builds.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionRequest {
    /// `ban`, `unban`, `mute`, `unmute`, `rename`, `delete`, `role`.
    pub action: String,
    /// The account's name.
    #[serde(default)]
    pub account: Option<String>,
    /// An address or a CIDR range (ban, unban, mute, unmute).
    #[serde(default)]
    pub addr: Option<String>,
    /// How long a ban or a mute lasts; absent or 0: until lifted.
    #[serde(default)]
    pub minutes: Option<u64>,
    /// `rename`: the new name.
    #[serde(default)]
    pub new_name: Option<String>,
    /// `role`: the new role.
    #[serde(default)]
    pub role: Option<Role>,
    /// Why (required).
    #[serde(default)]
    pub reason: String,
    /// The report the action answers (it is closed).
    #[serde(default)]
    pub report: Option<String>,
}

fn bad(message: impl Into<String>) -> ModError {
    ModError::BadAction(message.into())
}

fn not_found(message: impl Into<String>) -> ModError {
    ModError::NotFound(message.into())
}

/// The answer to a moderator who may not take this action.
pub fn forbidden(message: impl Into<String>) -> ModError {
    ModError::Forbidden(message.into())
}

/// The reason, trimmed, or why it is refused.
///
/// # Errors
/// Empty or too long.
pub fn check_reason(reason: &str) -> Result<String, ModError> {
    let r = reason.trim();
    if r.is_empty() {
        return Err(bad("say why (a reason is required)"));
    }
    if r.chars().count() > MAX_REASON {
        return Err(bad(format!("a reason has at most {MAX_REASON} characters")));
    }
    Ok(r.to_string())
}

/// An address (`203.0.113.7`) or a range (`203.0.113.0/24`) as a range.
///
/// # Errors
/// Neither.
pub fn parse_range(s: &str) -> Result<IpNet, ModError> {
    let s = s.trim();
    s.parse::<IpNet>()
        .map(|n| n.trunc())
        .or_else(|_| s.parse::<std::net::IpAddr>().map(IpNet::from))
        .map_err(|_| bad(format!("{s:?} is neither an IP address nor a CIDR range")))
}

/// The widest ranges a ban or a mute may name: an IPv4 /16, an IPv6 /32. A wider one
/// would shut out a good part of the world (`0.0.0.0/0`, everyone).
const WIDEST_RANGE: (u8, u8) = (16, 32);

/// Refuses a range wider than [`WIDEST_RANGE`].
fn sane_range(net: IpNet) -> Result<IpNet, ModError> {
    let (limit, family) = match net {
        IpNet::V4(_) => (WIDEST_RANGE.0, "IPv4"),
        IpNet::V6(_) => (WIDEST_RANGE.1, "IPv6"),
    };
    if net.prefix_len() < limit {
        return Err(bad(format!(
            "{net} is too wide a range: an {family} range has a prefix of /{limit} or longer"
        )));
    }
    Ok(net)
}

/// Refuses an action by a moderator on staff: moderators and admins answer to admins
/// alone.
async fn staff_for_admins(
    m: &ModDb,
    role: Role,
    target: &Target,
) -> Result<Option<Role>, ModError> {
    let Target::Account { id, .. } = target else {
        return Ok(None);
    };
    let theirs = m.role(id).await?;
    if theirs.moderates() && role != Role::Admin {
        return Err(forbidden("moderators and admins answer to an admin only"));
    }
    Ok(Some(theirs))
}

/// The account named `name`, as a target.
async fn account(accounts: &Db, name: Option<&str>) -> Result<Target, ModError> {
    let name = name.ok_or_else(|| bad("name the account"))?;
    let a = accounts
        .by_name(name)
        .await?
        .ok_or_else(|| not_found(format!("no account is named {name:?}")))?;
    Ok(Target::Account {
        id: a.id,
        name: a.name,
    })
}

/// The account or the range of a ban or a mute.
async fn target(accounts: &Db, req: &ActionRequest) -> Result<Target, ModError> {
    match (&req.account, &req.addr) {
        (Some(_), None) => account(accounts, req.account.as_deref()).await,
        (None, Some(addr)) => Ok(Target::Range(sane_range(parse_range(addr)?)?)),
        _ => Err(bad("name an account or an address range, not both")),
    }
}

fn kind_of(action: &str) -> Option<SanctionKind> {
    match action {
        "ban" | "unban" => Some(SanctionKind::Ban),
        "mute" | "unmute" => Some(SanctionKind::Mute),
        _ => None,
    }
}

/// Takes the action `req` as `by` (a moderator's name, or `command line`) of role
/// `role`; returns its log entry. A report named in it is closed.
///
/// # Errors
/// `400 bad_action`, `403 forbidden` (an admin's action by a moderator), `404
/// not_found`, the name rules' errors for a rename; database errors.
pub async fn apply(
    m: &ModDb,
    accounts: &Db,
    by: &str,
    role: Role,
    req: ActionRequest,
) -> Result<LogEntry, ModError> {
    let reason = check_reason(&req.reason)?;
    let action = req.action.as_str();
    if matches!(action, "delete" | "role") && role != Role::Admin {
        return Err(forbidden("only an admin deletes accounts and gives roles"));
    }
    let mut details = json!({});
    let label = match action {
        "ban" | "mute" => {
            let t = target(accounts, &req).await?;
            staff_for_admins(m, role, &t).await?;
            let minutes = req.minutes.filter(|&n| n > 0);
            if minutes.is_some_and(|n| n > MAX_MINUTES) {
                return Err(bad("at most ten years; leave minutes out for until lifted"));
            }
            let until = minutes.map(|n| unix_ms() + i64::try_from(n * 60_000).unwrap_or(i64::MAX));
            let kind = kind_of(action).unwrap_or(SanctionKind::Ban);
            m.add_sanction(kind, &t, &reason, by, until).await?;
            details = json!({ "minutes": minutes, "until": until });
            t.label()
        }
        "unban" | "unmute" => {
            let t = target(accounts, &req).await?;
            staff_for_admins(m, role, &t).await?;
            let kind = kind_of(action).unwrap_or(SanctionKind::Ban);
            if m.lift(kind, &t, by).await? == 0 {
                return Err(not_found(format!(
                    "no {} is in force for {}",
                    kind.to_column(),
                    t.label()
                )));
            }
            t.label()
        }
        "rename" => {
            let t = account(accounts, req.account.as_deref()).await?;
            let staff = staff_for_admins(m, role, &t).await?;
            let Target::Account { id, name } = t else {
                return Err(bad("name the account"));
            };
            let new = names::normalize(req.new_name.as_deref().unwrap_or_default())
                .map_err(crate::accounts::AccountError::Name)?;
            accounts.rename(&id, &new).await?.made(&new)?;
            if staff.is_some_and(Role::moderates) {
                accounts.reserve_name(&name).await?;
            }
            details = json!({ "new_name": new });
            name
        }
        "delete" => {
            let t = account(accounts, req.account.as_deref()).await?;
            let staff = staff_for_admins(m, role, &t).await?;
            let Target::Account { id, name } = t else {
                return Err(bad("name the account"));
            };
            accounts.delete(&id, DELETED_NAME).await?;
            if staff.is_some_and(Role::moderates) {
                accounts.reserve_name(&name).await?;
            }
            name
        }
        "role" => {
            let Target::Account { id, name } = account(accounts, req.account.as_deref()).await?
            else {
                return Err(bad("name the account"));
            };
            let new = req
                .role
                .ok_or_else(|| bad("give the role: player, moderator or admin"))?;
            m.set_role(&id, new).await?;
            details = json!({ "role": new });
            name
        }
        other => {
            return Err(bad(format!(
                "unknown action {other:?}: ban, unban, mute, unmute, rename, delete or role"
            )))
        }
    };
    if let Some(report) = &req.report {
        details["report"] = json!(report);
        super::reports::close(m, report, by, &format!("{action} {label}: {reason}")).await?;
    }
    let entry = LogEntry {
        id: uuid::Uuid::new_v4().to_string(),
        at: unix_ms(),
        by: by.to_string(),
        action: action.to_string(),
        target: label,
        reason,
        details,
    };
    m.log(&entry).await?;
    tracing::info!(by = %entry.by, action = %entry.action, target = %entry.target, "moderation");
    Ok(entry)
}
