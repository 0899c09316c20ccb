//! What nodes send each other over NATS about a room.
//!
//! - `{prefix}.room.{id}.cmd`: to the owner, a [`NodeCmd`] as JSON (requests get a
//!   reply: `ok`, an error code, or the JSON asked for).
//! - `{prefix}.room.{id}.to.{node}`: from the owner to the sockets of the room on
//!   `node`, an [`Out`] frame: a one-line header `{conn} {kind}` and, for text, the
//!   server message's JSON exactly as the room serialised it (never re-encoded).

use bytes::Bytes;
use serde::{Deserialize, Serialize};

use sannin_protocol::ClientMsg;

/// A command to a room's owner from another node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum NodeCmd {
    /// Is anyone owning the room? (request; answered `ok`).
    Probe,
    /// A socket of `node` opened on the room (request; `ok` or an error code).
    Connect {
        /// Node of the socket.
        node: String,
        /// Its connection id on that node.
        conn: u64,
        /// The account its session cookie names (checked by that node), if any.
        #[serde(default)]
        account: Option<String>,
        /// That account's id.
        #[serde(default)]
        account_id: Option<String>,
    },
    /// The socket closed.
    Disconnect {
        /// Node.
        node: String,
        /// Connection id.
        conn: u64,
    },
    /// A message the socket sent, parsed and checked by its node.
    Msg {
        /// Node.
        node: String,
        /// Connection id.
        conn: u64,
        /// The message.
        msg: ClientMsg,
    },
    /// A round trip the socket's node measured.
    Rtt {
        /// Node.
        node: String,
        /// Connection id.
        conn: u64,
        /// Milliseconds.
        rtt_ms: u64,
    },
    /// `GET /api/rooms/{id}` (request; the details as JSON).
    Details,
    /// `GET /api/rooms/{id}/record` (request; the record text).
    Record {
        /// The room's link.
        site: String,
    },
}

impl NodeCmd {
    /// As sent.
    pub fn encode(&self) -> Bytes {
        Bytes::from(serde_json::to_vec(self).unwrap_or_default())
    }

    /// As received.
    pub fn decode(b: &[u8]) -> Option<NodeCmd> {
        serde_json::from_slice(b).ok()
    }
}

/// A frame from the owner to one socket on another node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Out {
    /// A text frame, the server message's JSON.
    Text(Bytes),
    /// A close frame with its code and reason.
    Close(u16, String),
    /// Ping the client now.
    Ping,
    /// Drop the socket at once (too slow), or the owner does not know it (it changed):
    /// the client reconnects and resumes.
    Drop,
}

/// Encodes `out` for connection `conn`.
pub fn encode_out(conn: u64, out: &Out) -> Bytes {
    let (kind, body): (String, &[u8]) = match out {
        Out::Text(t) => ("t".into(), t),
        Out::Close(code, reason) => (format!("c{code}"), reason.as_bytes()),
        Out::Ping => ("p".into(), b""),
        Out::Drop => ("x".into(), b""),
    };
    let mut v = Vec::with_capacity(24 + body.len());
    v.extend_from_slice(format!("{conn} {kind}\n").as_bytes());
    v.extend_from_slice(body);
    Bytes::from(v)
}

/// Decodes a frame: the connection and what to do with it.
pub fn decode_out(b: &Bytes) -> Option<(u64, Out)> {
    let nl = b.iter().position(|c| *c == b'\n')?;
    let head = std::str::from_utf8(&b[..nl]).ok()?;
    let (conn, kind) = head.split_once(' ')?;
    let conn = conn.parse().ok()?;
    let body = b.slice(nl + 1..);
    let out = match kind {
        "t" => Out::Text(body),
        "p" => Out::Ping,
        "x" => Out::Drop,
        k => {
            let code = k.strip_prefix('c')?.parse().ok()?;
            Out::Close(code, String::from_utf8_lossy(&body).into_owned())
        }
    };
    Some((conn, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_to_sockets_round_trip_with_the_text_untouched() {
        let text = Bytes::from_static(br#"{"seq":3,"type":"event"}"#);
        for out in [
            Out::Text(text.clone()),
            Out::Close(1012, "server restart".into()),
            Out::Ping,
            Out::Drop,
        ] {
            assert_eq!(decode_out(&encode_out(42, &out)), Some((42, out)));
        }
        assert_eq!(decode_out(&Bytes::from_static(b"nonsense")), None);
        assert_eq!(decode_out(&Bytes::from_static(b"1 q\n")), None);
    }

    #[test]
    fn commands_round_trip() {
        let msg = ClientMsg::parse(r#"{"type":"act","action":"P3c-4d"}"#).unwrap();
        let cmd = NodeCmd::Msg {
            node: "n1".into(),
            conn: 7,
            msg,
        };
        assert_eq!(NodeCmd::decode(&cmd.encode()), Some(cmd));
        assert_eq!(NodeCmd::decode(b"{}"), None);
    }
}
