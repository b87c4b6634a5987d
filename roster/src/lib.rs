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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_listed_once() {
        let names: Vec<&str> = players().entries().iter().map(|e| e.name).collect();
        for kind in ["random", "greedy", "expectimax", "ntuple", "net", "netsearch", "netexpectimax", "netrollout", "ucc"] {
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
