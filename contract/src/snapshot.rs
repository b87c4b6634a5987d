//! The one-line texts of states (snapshots) that the games on the contract
//! write: fields separated by white space, the first of them the canonical
//! settings text the state was written under (`canonical`), so that a
//! snapshot read under other settings is refused with both named.

use std::str::FromStr;

use crate::canonical::{CanonicalSettings, SettingsError};

/// The fields of the snapshot `text`: exactly as many as `names` names
/// (`settings`, `board`, ...), or the message `expected 4 fields (settings,
/// board, side, ply), found 3`.
pub fn fields<'t>(text: &'t str, names: &[&str]) -> Result<Vec<&'t str>, String> {
    split(text, names, false)
}

/// The fields of the snapshot `text` when its first fields are those
/// `names` names and more may follow (moves): at least as many, or the
/// message `expected at least 5 fields (ruleset, ...), found 3`.
pub fn leading_fields<'t>(text: &'t str, names: &[&str]) -> Result<Vec<&'t str>, String> {
    split(text, names, true)
}

fn split<'t>(text: &'t str, names: &[&str], more: bool) -> Result<Vec<&'t str>, String> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.len() == names.len() || (more && fields.len() > names.len()) {
        return Ok(fields);
    }
    let at_least = if more { "at least " } else { "" };
    Err(format!("expected {at_least}{} fields ({}), found {}", names.len(), names.join(", "), fields.len()))
}

/// Fails unless the snapshot `text` was written under `expected`: its first
/// field must read as settings of the family (a malformed one is that
/// error) equal to `expected` (or the mismatch names both).
pub fn ensure_under<S>(expected: &S, text: &str) -> Result<(), SettingsError<S>>
where
    S: CanonicalSettings + FromStr<Err = SettingsError<S>>,
{
    let found: S = text.split_whitespace().next().unwrap_or("").parse()?;
    expected.ensure_same(&found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_counted_and_named_in_the_message() {
        let names = ["settings", "board", "side"];
        assert_eq!(fields(" s  b\tred ", &names), Ok(vec!["s", "b", "red"]));
        assert_eq!(fields("s b", &names), Err("expected 3 fields (settings, board, side), found 2".into()));
        assert_eq!(fields("s b red x", &names).unwrap_err(), "expected 3 fields (settings, board, side), found 4");
        assert_eq!(leading_fields("s b red x y", &names).map(|f| f.len()), Ok(5));
        assert_eq!(
            leading_fields("", &names),
            Err("expected at least 3 fields (settings, board, side), found 0".into())
        );
    }
}
