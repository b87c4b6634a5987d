//! The run's pool of past selves on disk (`RUN/pool/NNNNNNNN.safetensors`,
//! one network checkpoint per version in the pool): the learner adds its
//! network every `selfplay.pool_every` iterations, a resumed run loads the
//! pool back, and a version that leaves the pool leaves the disk too. The
//! sampling rule is `stratego_selfplay::Pool`'s.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use stratego_model::{CheckpointMeta, StrategoNet};
use stratego_netplayer::{NetOptions, NetPlayerFactory};
use stratego_selfplay::Pool;

use crate::error::TrainError;
use crate::run::run_error;

/// The pool's folder in a run directory.
pub fn pool_dir(run: &Path) -> PathBuf {
    run.join("pool")
}

fn version_file(run: &Path, version: u64) -> PathBuf {
    pool_dir(run).join(format!("{version:08}.safetensors"))
}

/// The pool of the run in `run` (empty for a new run): the newest `size`
/// versions found in its folder, loaded as players.
pub fn open(run: &Path, size: usize) -> Result<Arc<Pool>, TrainError> {
    let pool = Pool::new(size);
    let dir = pool_dir(run);
    let mut versions: Vec<u64> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().to_str()?.strip_suffix(".safetensors")?.parse().ok())
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(run_error(&dir, e)),
    };
    versions.sort_unstable();
    for version in versions.iter().skip(versions.len().saturating_sub(size)) {
        pool.add(*version, load(run, *version)?);
    }
    Ok(pool)
}

/// Adds `net` (policy version `meta.step`) to the pool: writes its file,
/// then removes the files of the versions that left.
pub fn add(pool: &Pool, run: &Path, net: &StrategoNet, meta: &CheckpointMeta) -> Result<(), TrainError> {
    let dir = pool_dir(run);
    std::fs::create_dir_all(&dir).map_err(|e| run_error(&dir, e))?;
    stratego_model::save(net, meta, &version_file(run, meta.step))?;
    for gone in pool.add(meta.step, load(run, meta.step)?) {
        let file = version_file(run, gone);
        std::fs::remove_file(&file).map_err(|e| run_error(&file, e))?;
    }
    Ok(())
}

/// A past self as a player: the `net:` player of its file on the CPU,
/// drawing its moves from its policy as self-play does (temperature 1), so
/// that its games vary as the network's own do.
fn load(run: &Path, version: u64) -> Result<Arc<dyn stratego_players::PlayerFactory>, TrainError> {
    let device = stratego_model::device("cpu")?;
    let options = NetOptions { temperature: 1.0, ..NetOptions::default() };
    let factory = NetPlayerFactory::load(&version_file(run, version), options, &device)?;
    Ok(Arc::new(factory))
}
