//! The one list of every kind of Stratego player a program can name in a
//! spec: the baselines (`random`, `greedy`, `expectimax`, `ntuple`), the
//! network players (`net`, `netsearch`, `netexpectimax`, `netrollout`) and
//! any outside program that speaks the UCC 2012 protocol (`ucc`).
//!
//! Each player crate registers its own entries; this crate only puts the
//! lists together, so that the command line, the Python package, the
//! learner's evaluations and the tests all meet the same players without
//! linking the learner. Adding a kind of player is an entry in its own
//! crate and, for a new crate, one line here.
//!
//! It also names the **fields**: lists of players that a list of specs (a
//! ladder, a training config's opponents) names by one word ([`FIELDS`],
//! [`expand`]): `ucc-field`, the outside sparring field of `shared/ucc`, and
//! `lab-field`, the lab's field of styles with it.

pub use stratego_players::{Registry, SpecError};

/// Every kind of player. Network checkpoints load on the CPU (a program
/// that wants them elsewhere registers `stratego_netplayer` with its
/// device); nothing is loaded until a spec is built.
pub fn players() -> Registry {
    let mut registry = stratego_baselines::registry();
    stratego_netplayer::register(&mut registry, None);
    stratego_ucc::register(&mut registry);
    registry
}

/// The outside sparring field of `shared/ucc` (the UCC 2012 referee's
/// bots): each found by name in `$UCC_DIR/bots` (`shared/ucc/setup.sh`).
pub const UCC_FIELD: [&str; 5] = ["ucc:asmodeus", "ucc:vixen", "ucc:celsius", "ucc:hunter", "ucc:basic_python"];

/// The lab's field of styles (EVALUATION.md, "Outside-style play": the
/// players that differ in style from the ones we train against), named from
/// the repository's root, and the outside field.
pub const LAB_FIELD: [&str; 10] = [
    "greedy:setup=handcrafted-v2",
    "ntuple:registrations/ntuple-td.safetensors",
    "net:registrations/cpu-continue.safetensors",
    "expectimax:depth=2,scale=100,setup=handcrafted-v2",
    "expectimax:depth=3,scale=0,guard=off,informed=off,setup=handcrafted-v2",
    UCC_FIELD[0],
    UCC_FIELD[1],
    UCC_FIELD[2],
    UCC_FIELD[3],
    UCC_FIELD[4],
];

/// Each named field and its players.
pub const FIELDS: [(&str, &[&str]); 2] = [("ucc-field", &UCC_FIELD), ("lab-field", &LAB_FIELD)];

/// `specs` with every field's name replaced by its players, in order.
pub fn expand(specs: &[String]) -> Vec<String> {
    specs
        .iter()
        .flat_map(|spec| match FIELDS.iter().find(|(name, _)| spec.trim() == *name) {
            Some((_, members)) => members.iter().map(|m| m.to_string()).collect(),
            None => vec![spec.clone()],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_expand_to_specs_the_registry_parses() {
        let specs = expand(&["random".into(), "ucc-field".into()]);
        assert_eq!(specs.len(), 6);
        assert_eq!(specs[1], "ucc:asmodeus");
        let registry = players();
        for (_, members) in FIELDS {
            for spec in members {
                registry.parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
            }
        }
        assert!(expand(&["lab-field".into()]).iter().any(|s| s.starts_with("ntuple:")));
    }

    #[test]
    fn every_kind_is_listed_once() {
        let names: Vec<&str> = players().entries().iter().map(|e| e.name).collect();
        for kind in
            ["random", "greedy", "expectimax", "ntuple", "net", "netsearch", "netexpectimax", "netrollout", "ucc"]
        {
            assert_eq!(names.iter().filter(|n| **n == kind).count(), 1, "{kind} in {names:?}");
        }
    }

    #[test]
    fn parsing_a_spec_loads_nothing() {
        // A spec naming a file that does not exist parses (name, path and
        // syntax are checked); only building it reads the file.
        let registry = players();
        let spec = registry.parse("net:/no/such/checkpoint.safetensors").unwrap();
        assert_eq!(spec.path.as_deref(), Some("/no/such/checkpoint.safetensors"));
        let err = registry.build(&spec).err().unwrap().to_string();
        assert!(err.contains("cannot load player"), "{err}");
    }
}
