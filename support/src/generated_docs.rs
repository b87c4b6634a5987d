//! Generated parts of the docs, kept equal to the code that defines them.
//!
//! Several tables live in code and in a document (the observation planes,
//! the learner's diagnostics, the crate graph). Each document holds the
//! generated part between two marker lines; a drift test calls [`check`]
//! ([`check_section`] with the lab's marker lines), which fails with the
//! command that rewrites it, and rewrites it when that command's
//! environment variable is set.

/// Compares the text between `begin` and `end` in the document at `path`
/// with `generated`. With the environment variable `update` set, writes
/// `generated` there instead. `Err` says what is wrong and how to fix it.
pub fn check(path: &str, begin: &str, end: &str, generated: &str, update: &str, test: &str) -> Result<(), String> {
    let doc = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let start = doc.find(begin).ok_or_else(|| format!("{path} has no line `{begin}`"))? + begin.len();
    let stop = doc[start..].find(end).ok_or_else(|| format!("{path} has no line `{end}` after `{begin}`"))? + start;
    if std::env::var_os(update).is_some() {
        let fresh = format!("{}{generated}{}", &doc[..start], &doc[stop..]);
        return std::fs::write(path, fresh).map_err(|e| format!("cannot write {path}: {e}"));
    }
    if doc[start..stop] == *generated {
        Ok(())
    } else {
        Err(format!("{path} is out of date: run `{update}=1 {test}`"))
    }
}

/// [`check`] for a part between the lab's marker lines,
/// `<!-- BEGIN GENERATED {what} ({test}) -->` and
/// `<!-- END GENERATED {what} -->`, where `what` names the part
/// (`PLANE TABLES`) and `test` is the command of its drift test.
pub fn check_section(path: &str, what: &str, generated: &str, update: &str, test: &str) -> Result<(), String> {
    let begin = format!("<!-- BEGIN GENERATED {what} ({test}) -->\n");
    let end = format!("<!-- END GENERATED {what} -->");
    check(path, &begin, &end, generated, update, test)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drift_is_found_and_rewritten() {
        let path = stratego_testkit::scratch_path("generated-docs.md");
        let path = path.to_str().unwrap();
        std::fs::write(path, "intro\n<!-- b -->\nold\n<!-- e -->\noutro\n").unwrap();
        let run = |update: &str| check(path, "<!-- b -->\n", "<!-- e -->", "new\n", update, "cargo test x");
        let err = run("GENERATED_DOCS_TEST_UNSET_VARIABLE").unwrap_err();
        assert!(err.contains("is out of date: run `GENERATED_DOCS_TEST_UNSET_VARIABLE=1 cargo test x`"), "{err}");
        assert!(check(path, "<!-- nope -->", "<!-- e -->", "", "X_UNSET", "t").unwrap_err().contains("has no line"));
        std::fs::write(path, "intro\n<!-- b -->\nnew\n<!-- e -->\noutro\n").unwrap();
        assert_eq!(run("GENERATED_DOCS_TEST_UNSET_VARIABLE"), Ok(()));
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn sections_have_the_lab_markers() {
        let path = stratego_testkit::scratch_path("generated-section.md");
        let path = path.to_str().unwrap();
        let doc = "<!-- BEGIN GENERATED T (cargo test x) -->\nrows\n<!-- END GENERATED T -->\n";
        std::fs::write(path, doc).unwrap();
        assert_eq!(check_section(path, "T", "rows\n", "GENERATED_DOCS_TEST_UNSET_VARIABLE", "cargo test x"), Ok(()));
        assert!(check_section(path, "U", "rows\n", "X_UNSET", "cargo test x").unwrap_err().contains("has no line"));
        std::fs::remove_file(path).unwrap();
    }
}
