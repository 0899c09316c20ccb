//! Mail for account recovery (docs/accounts.md, "E-mail and a forgotten password"):
//! a link to verify an address and a link to set a new password, sent over the SMTP
//! server the self-hoster names. Without one the server sends no mail, and an admin
//! resets passwords (`sannin admin reset-password`).

use anyhow::Context as _;
use lettre::message::Mailbox;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

/// The flags of mail.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct MailArgs {
    /// The SMTP server that sends the mail of account recovery:
    /// `smtp://user:password@host:587?tls=required` (STARTTLS), `smtps://…:465` (TLS),
    /// `smtp://host:25` (plain, on a trusted network). Unset: no mail.
    #[arg(long, env = "SANNIN_SMTP_URL")]
    pub smtp_url: Option<String>,

    /// The sender of that mail.
    #[arg(long, env = "SANNIN_MAIL_FROM", default_value = "noreply@localhost")]
    pub mail_from: String,

    /// The site's address as its players reach it (`https://shogi.example.org`): the
    /// links in mail start with it. Needed with `--smtp-url` (a link is never built
    /// from a request's Host header, which a stranger chooses).
    #[arg(long, env = "SANNIN_PUBLIC_URL")]
    pub public_url: Option<String>,
}

/// Mail, ready to send.
#[derive(Clone)]
pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    public_url: String,
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mailer")
            .field("from", &self.from.to_string())
            .field("public_url", &self.public_url)
            .finish_non_exhaustive()
    }
}

impl Mailer {
    /// The mailer the flags describe; None without `--smtp-url`.
    ///
    /// # Errors
    /// A URL lettre cannot read, a bad sender, or `--smtp-url` without `--public-url`.
    pub fn from_args(args: &MailArgs) -> anyhow::Result<Option<Mailer>> {
        let Some(url) = args.smtp_url.as_deref().filter(|u| !u.trim().is_empty()) else {
            return Ok(None);
        };
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .context("--smtp-url: expected smtp://user:password@host:port or smtps://…")?
            .build();
        let from = args
            .mail_from
            .parse::<Mailbox>()
            .context("--mail-from: expected an address such as Sannin <noreply@example.org>")?;
        let public_url = args
            .public_url
            .as_deref()
            .map(|u| u.trim().trim_end_matches('/'))
            .filter(|u| u.starts_with("http://") || u.starts_with("https://"))
            .context("--smtp-url needs --public-url (http:// or https://): the links in mail start with it")?
            .to_string();
        Ok(Some(Mailer {
            transport,
            from,
            public_url,
        }))
    }

    /// The site's address followed by `path` (which starts with `/`).
    pub fn link(&self, path: &str) -> String {
        format!("{}{path}", self.public_url)
    }

    /// Sends a plain-text message to `to`.
    ///
    /// # Errors
    /// A bad address or the SMTP server's refusal.
    pub async fn send(&self, to: &str, subject: &str, body: String) -> anyhow::Result<()> {
        let to: Mailbox = to.parse().context("the recipient's address")?;
        let message = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(subject)
            .body(body)
            .context("building the message")?;
        self.transport
            .send(message)
            .await
            .context("the SMTP server refused the message")?;
        Ok(())
    }
}

/// Whether `email` looks like an address mail can go to: one `@` with something on
/// both sides, a dot in the domain, no spaces, at most 254 bytes (what lettre parses
/// is checked again when a message is sent).
pub fn looks_like_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    email.len() <= 254
        && !local.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
        && email.parse::<Mailbox>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses() {
        for ok in ["ann@example.org", "a.b+c@mail.example.co.jp"] {
            assert!(looks_like_email(ok), "{ok}");
        }
        for bad in [
            "",
            "ann",
            "ann@",
            "@example.org",
            "ann@example",
            "a b@example.org",
            "a@b@c.org",
            "ann@.org",
        ] {
            assert!(!looks_like_email(bad), "{bad}");
        }
    }

    #[test]
    fn a_mailer_needs_the_public_address() {
        let mut args = MailArgs {
            smtp_url: Some("smtp://127.0.0.1:2525".into()),
            mail_from: "noreply@localhost".into(),
            public_url: None,
        };
        assert!(Mailer::from_args(&args).is_err());
        args.public_url = Some("https://shogi.example.org/".into());
        let m = Mailer::from_args(&args).unwrap().unwrap();
        assert_eq!(
            m.link("/account/reset"),
            "https://shogi.example.org/account/reset"
        );
        args.smtp_url = None;
        assert!(Mailer::from_args(&args).unwrap().is_none());
    }
}
