//! A checkpoint restores training exactly: two optimizer steps in a row give
//! the same weights as one step, a save, a restore and a second step. This
//! fails if the optimizer's moments do not find their parameters again (burn
//! keys them by parameter id, which safetensors files do not keep).

use burn::module::Module;
use burn::optim::{AdamWConfig, GradientsParams};
use burn::tensor::{Int, Tensor, TensorData};
use stratego_engine::{Layout, Ruleset, VecEnv, NUM_ACTIONS};
use stratego_learner::run::{restore, Counters, NetworkRun};
use stratego_learner::TrainConfig;
use stratego_model::{device, loss_terms, CheckpointMeta, ModelConfig, Observed, StrategoNet};

#[test]
fn a_restored_checkpoint_continues_exactly() {
    let plain = device("cpu").unwrap();
    let dev = plain.clone().autodiff();
    dev.seed(3);
    let layout = Layout::Compact;
    let config = ModelConfig::preset("tiny").unwrap();
    let games = 4;
    let observed = Observed::of(&VecEnv::new(Ruleset::classic(), games, 9).unwrap(), layout);
    let uniform = observed.uniform_policy();
    let step = |net: StrategoNet, optim: &mut burn::optim::ModuleOptimizer| {
        let (x, mask) = observed.tensors(&dev);
        let out = net.forward(x, mask);
        let target = Tensor::<2>::from_data(TensorData::new(uniform.clone(), [games, NUM_ACTIONS]), &dev);
        let outcome = Tensor::<1, Int>::from_data(TensorData::new(vec![2i64, 0, 1, 2], [games]), &dev);
        let loss = loss_terms(&out, target, outcome, &observed.belief_targets).total(1.0);
        let grads = GradientsParams::from_grads(loss.backward(), &net);
        optim.step(1e-3, net, grads)
    };
    let weights = |net: &StrategoNet| {
        let (x, mask) = observed.tensors(&plain);
        net.valid().forward(x, mask).value_logits.into_data().try_to_vec::<f32>().unwrap()
    };

    let start = StrategoNet::new(&config, layout, &dev);
    let mut optim = AdamWConfig::new().init();
    let once = step(start, &mut optim);

    // Straight on.
    let mut straight_optim = AdamWConfig::new().init().load_record(optim.to_record());
    let straight = step(once.clone(), &mut straight_optim);

    // Through a checkpoint.
    let root = stratego_testkit::scratch_path("learner-resume");
    let run = NetworkRun::create(&root, &TrainConfig::default()).unwrap();
    let meta = CheckpointMeta { config: config.clone(), layout, rules: Ruleset::classic(), step: 1 };
    let counters = Counters { iteration: 1, plies: 10, games: 1, samples: 4, seconds: 1.0, entropy: Some(0.5) };
    let dir = run.save(&counters, &meta, &once, &once.valid(), &optim, 2).unwrap();
    let restored = restore(&dir, &meta, &dev, &plain, AdamWConfig::new().init()).unwrap();
    assert_eq!(restored.counters, counters);
    let mut restored_optim = restored.optimizer;
    let resumed = step(restored.net, &mut restored_optim);

    let (a, b) = (weights(&straight), weights(&resumed));
    assert!(a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-6), "{a:?} vs {b:?}");
    // A fresh optimizer (moments lost) takes a different second step.
    let mut fresh = AdamWConfig::new().init();
    let lost = weights(&step(once, &mut fresh));
    assert!(a.iter().zip(&lost).any(|(x, y)| (x - y).abs() > 1e-6), "the test cannot tell lost moments apart");
    std::fs::remove_dir_all(&root).unwrap();
}

/// A run directory written when the config had fewer keys (its
/// `config.toml` and its checkpoint's lack one that exists now) resumes:
/// the run's stored config is the truth, and the key it lacks takes its
/// documented default. A key that today's config does not know is refused
/// with one line naming it.
#[test]
fn a_run_written_by_an_older_config_shape_resumes() {
    let mut config = TrainConfig::parse(include_str!("../../configs/smoke.toml")).unwrap();
    config.pretrain.enabled = false;
    let root = stratego_testkit::scratch_path("learner-older-shape");
    let run = NetworkRun::create(&root, &config).unwrap();
    let plain = device("cpu").unwrap();
    let dev = plain.clone().autodiff();
    let model = config.model.preset.model();
    let net = StrategoNet::new(&model, config.game.layout, &dev);
    let meta = CheckpointMeta { config: model, layout: config.game.layout, rules: config.game.rules, step: 1 };
    let counters = Counters { iteration: 1, plies: 10, games: 1, samples: 4, seconds: 1.0, entropy: Some(0.5) };
    let checkpoint = run.save(&counters, &meta, &net, &net.valid(), &AdamWConfig::new().init(), 2).unwrap();
    drop(run);

    // The older shape: both stored configs without `max_staleness` (at its
    // default in the smoke config), the checkpoint's manifest written for
    // the file as it was then.
    let key = "max_staleness = 4\n";
    assert_eq!(TrainConfig::default().selfplay.max_staleness, 4, "the stripped key must be at its default");
    for file in [root.join("config.toml"), checkpoint.join("config.toml")] {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(key), "{}", file.display());
        std::fs::write(&file, text.replace(key, "")).unwrap();
    }
    rewrite_manifest(&checkpoint);

    let (run, reopened) = NetworkRun::open(&root).unwrap();
    assert_eq!(reopened, config, "the missing key takes its default, everything else is the run's");
    let (iteration, latest) = run.latest_verified().unwrap().expect("the checkpoint verifies");
    assert_eq!(iteration, 1);
    run.check_config(&latest).unwrap();
    let options = stratego_learner::TrainOptions { device: Some("cpu".into()), progress: false };
    let learner = stratego_learner::Learner::open(&reopened, run, true, &options).unwrap();
    assert_eq!(learner.summary().counters.iteration, 1);
    drop(learner);

    // A key the config no longer knows: one line naming it.
    let text = std::fs::read_to_string(root.join("config.toml")).unwrap();
    std::fs::write(root.join("config.toml"), text.replace("[selfplay]\n", "[selfplay]\nretired_key = 1\n")).unwrap();
    let err = NetworkRun::open(&root).err().unwrap().to_string();
    assert!(err.contains("retired_key") && err.lines().count() == 1, "{err}");
    std::fs::remove_dir_all(&root).unwrap();
}

/// The manifest a checkpoint carries (`run.rs`), for files edited in place.
fn rewrite_manifest(checkpoint: &std::path::Path) {
    use sha2::{Digest, Sha256};
    let path = checkpoint.join("manifest.json");
    let mut manifest: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let names: Vec<String> = manifest["sha256"].as_object().unwrap().keys().cloned().collect();
    for name in names {
        let bytes = std::fs::read(checkpoint.join(&name)).unwrap();
        let hex: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        manifest["sha256"][&name] = hex.into();
    }
    std::fs::write(&path, serde_json::to_string_pretty(&manifest).unwrap()).unwrap();
}
