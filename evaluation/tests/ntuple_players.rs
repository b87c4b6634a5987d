//! The n-tuple specs (`ntuple:PATH`, `expectimax:leaf=ntuple:PATH`): parsing,
//! loading, rules checks, and legal play in the arena.

use std::path::PathBuf;

use rand::{Rng, SeedableRng};
use stratego_baselines::factory_of as factory;
use stratego_baselines::ntuple::{layout, Layout, NTupleNet};
use stratego_engine::Ruleset;
use stratego_evaluation::arena::{play_match, ArenaError, MatchConfig};
use stratego_players::AgentRng;
use stratego_players::{PlayerSpec, SpecError};

/// A table file with seeded random weights, for `rules`.
pub fn table_file(name: &str, rules: Ruleset) -> PathBuf {
    let mut net = NTupleNet::new(Layout::preset(layout::DEFAULT).unwrap(), rules, false).unwrap();
    let mut rng = AgentRng::seed_from_u64(17);
    for k in 0..net.layout().tables() {
        net.table_mut(k).iter_mut().for_each(|w| *w = rng.random_range(-0.1..0.1));
    }
    net.material_tables_mut().iter_mut().for_each(|w| *w = rng.random_range(-0.1..0.1));
    // One path per name: the tests that call this run in parallel.
    let path = stratego_testkit::scratch_path(&format!("ntuple-agents-{name}"));
    net.save(&path, None).unwrap();
    path
}

#[test]
fn ntuple_specs_parse_and_print_canonically() {
    // The factories read the tables, so the specs name a real file.
    let t = table_file("t.safetensors", Ruleset::classic());
    let t = t.display().to_string();
    for (text, canonical) in [
        (format!("ntuple:{t}"), format!("ntuple:{t}")),
        (format!("ntuple: {t} ,setup=handcrafted"), format!("ntuple:{t},setup=handcrafted")),
        (format!("ntuple:{t},setup=handcrafted,press=on"), format!("ntuple:{t},press=on,setup=handcrafted")),
        (format!("ntuple:{t},press=auto"), format!("ntuple:{t}")),
        (format!("expectimax:depth=2,leaf=ntuple:{t}"), format!("expectimax:depth=2,leaf=ntuple:{t}")),
        ("expectimax:leaf=handwritten".to_string(), "expectimax:depth=3".to_string()),
    ] {
        let factory = factory(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(factory.name(), canonical);
        assert_eq!(self::factory(&canonical).unwrap().name(), canonical);
    }
    let spec: PlayerSpec = "expectimax:depth=2,leaf=ntuple:a/b.safetensors".parse().unwrap();
    assert_eq!(spec.option("leaf"), Some("ntuple:a/b.safetensors"));
    let err = |text: &str| factory(text).err().unwrap().to_string();
    assert!(err("ntuple:").contains("has nothing after `:`"));
    assert!(err("ntuple:setup=handcrafted").contains("needs a table file path"));
    assert!(err(&format!("ntuple:{t},depth=2")).contains("player `ntuple` has no option `depth`"));
    assert!(err(&format!("ntuple:{t},press=hard")).contains("bad value `hard` for option `press`"));
    assert!(err("expectimax:leaf=neural").contains("bad value `neural` for option `leaf`"));
    assert!(err("expectimax:leaf=ntuple:").contains("bad value `ntuple:`"));
    std::fs::remove_file(&t).unwrap();
}

#[test]
fn missing_or_bad_table_files_are_clear_errors() {
    let missing = factory("ntuple:/nonexistent/t.safetensors").err().unwrap();
    assert!(matches!(missing, SpecError::Load { .. }));
    assert!(missing.to_string().contains("n-tuple table file /nonexistent/t.safetensors: cannot read"), "{missing}");
    let dir = stratego_testkit::scratch_dir("ntuple-bad");
    let junk = dir.join("junk.safetensors");
    std::fs::write(&junk, b"\x08\x00\x00\x00\x00\x00\x00\x00{}      ").unwrap();
    let err = factory(&format!("expectimax:leaf=ntuple:{}", junk.display())).err().unwrap().to_string();
    assert!(err.contains("metadata `ntuple.format` is missing"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ntuple_players_play_legal_games_and_refuse_other_rules() {
    let rules = Ruleset { max_plies: 300, ..Ruleset::barrage() };
    let path = table_file("barrage.safetensors", rules);
    let a = factory(&format!("ntuple:{}", path.display())).unwrap();
    let b = factory(&format!("expectimax:depth=2,nodes=300,leaf=ntuple:{}", path.display())).unwrap();
    assert_eq!(b.name(), format!("expectimax:depth=2,nodes=300,leaf=ntuple:{}", path.display()));
    let config = MatchConfig::new(rules, 4, 3);
    let result = play_match(a.as_ref(), b.as_ref(), &config, &|_| {}).unwrap();
    assert_eq!(result.games.len(), 4);
    for game in &result.games {
        game.record.as_ref().unwrap().replay().unwrap();
    }
    // The arena checks the ruleset before the first game.
    let classic = MatchConfig { rules: Ruleset::classic(), ..config };
    let err = play_match(a.as_ref(), b.as_ref(), &classic, &|_| {}).err().unwrap();
    assert!(matches!(err, ArenaError::Rules { .. }));
    // The message says which ruleset is the player's and which the match's.
    let text = err.to_string();
    assert!(text.contains("its tables were trained for") && text.contains("but the match plays"), "{text}");
    assert!(text.contains(&Ruleset::classic().canonical()), "{text}");
    let greedy = factory("greedy").unwrap();
    let err = play_match(greedy.as_ref(), b.as_ref(), &classic, &|_| {}).err().unwrap();
    assert!(err.to_string().contains("its leaf tables were trained for"), "{err}");
    std::fs::remove_file(&path).unwrap();
}
