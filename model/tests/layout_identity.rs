//! Checkpoints carry the identity of their observation layout
//! (`stratego.layout_id`, e.g. `compact-v1:e9f9c7b6`) and are refused by an
//! engine whose layout has another identity, with both named.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use stratego_engine::obs::LayoutId;
use stratego_engine::{Layout, Ruleset};
use stratego_model::checkpoint::LAYOUT_IDS_BEFORE_IDS;
use stratego_model::{device, infer, load, read_meta, save, CheckpointMeta, ModelConfig, StrategoNet};

fn temp_dir(name: &str) -> PathBuf {
    stratego_testkit::scratch_dir(&format!("model-{name}"))
}

/// A tiny network of `layout` saved as `dir/LAYOUT.safetensors`: its path
/// and metadata.
fn write_checkpoint(layout: Layout, dir: &Path) -> (PathBuf, CheckpointMeta) {
    let path = dir.join(format!("{layout}.safetensors"));
    let config = ModelConfig::preset("tiny").unwrap();
    let net = StrategoNet::new(&config, layout, &device("cpu").unwrap());
    let meta = CheckpointMeta { config, layout, rules: Ruleset::classic(), step: 5 };
    save(&net, &meta, &path).unwrap();
    (path, meta)
}

fn metadata(path: &Path) -> HashMap<String, String> {
    let bytes = std::fs::read(path).unwrap();
    let (_, header) = safetensors::SafeTensors::read_metadata(&bytes).unwrap();
    header.metadata().clone().unwrap_or_default()
}

/// A copy of the checkpoint at `from` with its metadata edited by `edit`.
fn with_metadata(from: &Path, to: &Path, edit: impl FnOnce(&mut HashMap<String, String>)) {
    let bytes = std::fs::read(from).unwrap();
    let tensors = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let mut meta = metadata(from);
    edit(&mut meta);
    let out = safetensors::serialize(tensors.tensors(), Some(meta)).unwrap();
    std::fs::write(to, out).unwrap();
}

#[test]
fn checkpoints_store_the_layout_identity_and_round_trip() {
    let dir = temp_dir("layout-id");
    for layout in Layout::ALL {
        let (path, meta) = write_checkpoint(layout, &dir);
        let stored = metadata(&path);
        assert_eq!(stored["stratego.layout"], layout.name());
        assert_eq!(stored["stratego.layout_id"], layout.identity().to_string());
        assert_eq!(read_meta(&path).unwrap(), meta);
        let (net, loaded) = load(&path, Some(layout), Some(&Ruleset::classic()), &device("cpu").unwrap()).unwrap();
        assert_eq!(loaded, meta);
        assert_eq!(net.layout(), layout);
        // A copy written through the same edit path with nothing changed loads too.
        let copy = dir.join(format!("{layout}-copy.safetensors"));
        with_metadata(&path, &copy, |_| {});
        assert_eq!(read_meta(&copy).unwrap(), meta);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn another_layout_version_or_hash_is_refused_naming_both() {
    let dir = temp_dir("layout-id-refused");
    let dev = device("cpu").unwrap();
    for layout in Layout::ALL {
        let (path, _) = write_checkpoint(layout, &dir);
        let current = layout.identity();
        let other_version = LayoutId { version: current.version + 1, ..current.clone() };
        let other_hash = LayoutId {
            hash: if current.hash == "00000000" { "11111111" } else { "00000000" }.into(),
            ..current.clone()
        };
        for other in [other_version, other_hash] {
            let edited = dir.join(format!("{layout}-{}.safetensors", other.version));
            with_metadata(&path, &edited, |m| {
                m.insert("stratego.layout_id".into(), other.to_string());
            });
            let expected = format!("layout {other} does not match this engine's {current}");
            for err in [read_meta(&edited).unwrap_err(), load(&edited, None, None, &dev).unwrap_err()] {
                let err = err.to_string();
                assert!(err.contains(&expected), "{err}");
                assert!(err.contains(&edited.display().to_string()), "{err}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_or_mismatched_layout_id_is_refused() {
    let dir = temp_dir("layout-id-bad");
    let (path, _) = write_checkpoint(Layout::Compact, &dir);
    let edited = dir.join("edited.safetensors");
    with_metadata(&path, &edited, |m| {
        m.insert("stratego.layout_id".into(), Layout::Full.identity().to_string());
    });
    let err = read_meta(&edited).unwrap_err().to_string();
    assert!(err.contains(&Layout::Full.identity().to_string()) && err.contains("`compact`"), "{err}");
    with_metadata(&path, &edited, |m| {
        m.insert("stratego.layout_id".into(), "compact-v1".into());
    });
    let err = read_meta(&edited).unwrap_err().to_string();
    assert!(err.contains("stratego.layout_id") && err.contains("not a layout identity"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A checkpoint from before identities were stored (only `stratego.layout`)
/// is read as written for the version-1 identity of its layout: it loads
/// while this engine's layout is that one, and is refused, naming both and
/// saying the identity was assumed, once the layout has changed.
#[test]
fn a_checkpoint_without_an_identity_is_read_as_version_1() {
    let dir = temp_dir("layout-id-legacy");
    for layout in Layout::ALL {
        let (path, meta) = write_checkpoint(layout, &dir);
        let old = dir.join(format!("{layout}-old.safetensors"));
        with_metadata(&path, &old, |m| {
            m.remove("stratego.layout_id");
        });
        let (_, assumed) = LAYOUT_IDS_BEFORE_IDS.into_iter().find(|(name, _)| *name == layout.name()).unwrap();
        let assumed: LayoutId = assumed.parse().unwrap();
        assert_eq!((assumed.name.as_str(), assumed.version), (layout.name(), 1));
        if assumed == layout.identity() {
            assert_eq!(read_meta(&old).unwrap(), meta);
        } else {
            let err = read_meta(&old).unwrap_err().to_string();
            assert!(err.contains(&format!("layout {assumed} (assumed")), "{err}");
            assert!(err.contains(&layout.identity().to_string()), "{err}");
        }
    }
    // Today both layouts are still version 1, so old checkpoints load.
    assert!(Layout::ALL.iter().all(|l| l.version() == 1));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_network_knows_its_layout() {
    let dev = device("cpu").unwrap();
    let config = ModelConfig::preset("tiny").unwrap();
    let net = StrategoNet::new(&config, Layout::Compact, &dev);
    assert_eq!(net.layout(), Layout::Compact);
    let dir = temp_dir("layout-id-net");
    let path = dir.join("mismatch.safetensors");
    let meta = CheckpointMeta { config, layout: Layout::Full, rules: Ruleset::classic(), step: 0 };
    let err = save(&net, &meta, &path).unwrap_err().to_string();
    assert!(err.contains("compact") && err.contains("full"), "{err}");
    assert!(!path.exists());
    let planes = vec![0.0; Layout::Full.size()];
    let legal = vec![true; stratego_engine::NUM_ACTIONS];
    let err = infer(&net, Layout::Full, &planes, &legal, &dev).unwrap_err().to_string();
    assert!(err.contains("compact") && err.contains("full"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
