//! How a recorded [`DecisionError`] is read back (`{"kind": "rate_limited", "retry_after_ms":
//! 1000, "message": "…"}`, as run files store it).
//!
//! Why by hand: serde reads an internally tagged enum by buffering the object into its generic
//! `Content` tree and replaying it into each variant, which cost the page's first load (where the
//! Route view replays run files) about 25 KB of wasm. Here the object is read once into optional
//! fields and the kind takes the ones it needs; fields no kind takes are ignored, as before.

use serde::Deserialize;

use super::error::DecisionError;

/// Every field any kind of error has, each optional.
#[derive(Deserialize)]
pub(super) struct ErrorFields {
    kind: String,
    message: Option<String>,
    retry_after_ms: Option<u64>,
    status: Option<u16>,
    key: Option<String>,
}

impl TryFrom<ErrorFields> for DecisionError {
    type Error = String;

    fn try_from(f: ErrorFields) -> Result<DecisionError, String> {
        let kind = f.kind.as_str();
        let need = |field: Option<String>, name: &str| {
            field.ok_or_else(|| format!("missing field `{name}` (kind {kind})"))
        };
        let status = |status: Option<u16>| {
            status.ok_or_else(|| format!("missing field `status` (kind {kind})"))
        };
        let message = need(f.message, "message")?;
        Ok(match kind {
            "unauthorized" => DecisionError::Unauthorized { message },
            "forbidden" => DecisionError::Forbidden { message },
            "unprocessable" => DecisionError::Unprocessable { message },
            "rate_limited" => DecisionError::RateLimited {
                retry_after_ms: f.retry_after_ms,
                message,
            },
            "overloaded" => DecisionError::Overloaded {
                retry_after_ms: f.retry_after_ms,
                message,
            },
            "server" => DecisionError::Server {
                status: status(f.status)?,
                message,
            },
            "status" => DecisionError::Status {
                status: status(f.status)?,
                message,
            },
            "malformed" => DecisionError::Malformed { message },
            "invalid_answer" => DecisionError::InvalidAnswer {
                key: need(f.key, "key")?,
                message,
            },
            "transport" => DecisionError::Transport { message },
            "replay" => DecisionError::Replay { message },
            other => return Err(format!("unknown kind {other:?}")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind reads back as it was written; a missing field or an unknown kind is named.
    #[test]
    fn every_kind_round_trips_and_bad_ones_are_named() {
        let message = || "m".to_string();
        for error in [
            DecisionError::Unauthorized { message: message() },
            DecisionError::Forbidden { message: message() },
            DecisionError::Unprocessable { message: message() },
            DecisionError::RateLimited {
                retry_after_ms: Some(1000),
                message: message(),
            },
            DecisionError::Overloaded {
                retry_after_ms: None,
                message: message(),
            },
            DecisionError::Server {
                status: 502,
                message: message(),
            },
            DecisionError::Status {
                status: 418,
                message: message(),
            },
            DecisionError::Malformed { message: message() },
            DecisionError::InvalidAnswer {
                key: "option_3".into(),
                message: message(),
            },
            DecisionError::Transport { message: message() },
            DecisionError::Replay { message: message() },
        ] {
            let json = serde_json::to_string(&error).unwrap();
            assert_eq!(
                serde_json::from_str::<DecisionError>(&json).unwrap(),
                error,
                "{json}"
            );
        }
        let said = serde_json::from_str::<DecisionError>(r#"{"kind": "server", "message": "m"}"#)
            .unwrap_err()
            .to_string();
        assert!(
            said.contains("missing field `status` (kind server)"),
            "{said}"
        );
        let said = serde_json::from_str::<DecisionError>(r#"{"kind": "gone", "message": "m"}"#)
            .unwrap_err()
            .to_string();
        assert!(said.contains("unknown kind \"gone\""), "{said}");
    }
}
