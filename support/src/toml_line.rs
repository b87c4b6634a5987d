//! TOML errors on one line. The lab's TOML files (registrations here, the
//! training and n-tuple configs in the learner) report a parse error as one
//! line naming the key and the line, not toml's multi-line source diagram:
//! every error of the command line is one `error: ...` line.

/// "`run.device`: unknown variant `tpu`, expected one of `cpu`, ... (line 2)".
pub fn one_line(text: &str, mut e: toml::de::Error) -> String {
    let line = e.span().map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1);
    // Without its input, toml's error shows the key path instead of the
    // source snippet ("<message>\nin `game.layout`").
    e.set_input(None);
    let shown = e.to_string();
    let key = shown.lines().find_map(|l| l.strip_prefix("in `").and_then(|l| l.strip_suffix('`')));
    let mut message = match key {
        Some(key) => format!("`{key}`: {}", e.message()),
        None => e.message().to_string(),
    };
    message = message.trim().replace('\n', "; ");
    if let Some(line) = line {
        message.push_str(&format!(" (line {line})"));
    }
    message
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_parse_error_is_one_line_with_its_key_and_line() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct T {
            a: u32,
        }
        let text = "# c\na = \"x\"\n";
        let e = toml::from_str::<T>(text).unwrap_err();
        assert_eq!(super::one_line(text, e), "`a`: invalid type: string \"x\", expected u32 (line 2)");
        let text = "a = \n";
        let e = toml::from_str::<T>(text).unwrap_err();
        let line = super::one_line(text, e);
        assert!(!line.contains('\n') && line.ends_with("(line 1)"), "{line}");
    }
}
