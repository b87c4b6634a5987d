//! `[pretrain] enabled` in a run: the imitation network becomes checkpoint 0
//! (and `pretrain.safetensors`), its epochs are logged under `pretrain/`, RL
//! continues from it, and a resume from checkpoint 0 restores it without
//! pretraining again.

use std::path::Path;

use burn::module::Module;
use stratego_engine::{Layout, Ruleset, VecEnv};
use stratego_learner::diagnostics::PRETRAIN_DIAGNOSTICS;
use stratego_learner::ppo::step::optimizer;
use stratego_learner::run::{restore, NetworkRun};
use stratego_learner::{train, TrainConfig, TrainOptions};
use stratego_model::{CheckpointMeta, Observed, StrategoNet};

const CONFIG: &str = r#"
[run]
seed = 5
iterations = 1
[game]
rules = "stratego-rules-v1:pieces=classic,two-square=3,chase=on,max-plies=100,max-battleless=60"
setups = "handcrafted"
[model]
preset = "tiny"
[selfplay]
actors = 1
games_per_actor = 4
[learner]
samples_per_iteration = 64
minibatch = 32
keep_quantile = 0.0
min_advantage = 0.0
[checkpoint]
every = 1
keep = 5
[eval]
every = 0
[pretrain]
enabled = true
teacher = "greedy"
games = 6
holdout = 0.2
epochs = 1
batch = 32
"#;

/// The value logits of `path`'s network on a few fresh positions.
fn outputs(path: &Path, rules: &Ruleset) -> Vec<f32> {
    let device = stratego_model::device("cpu").unwrap();
    let (net, _) = stratego_model::load(path, Some(Layout::Compact), Some(rules), &device).unwrap();
    logits(&net, rules)
}

fn logits(net: &StrategoNet, rules: &Ruleset) -> Vec<f32> {
    let device = stratego_model::device("cpu").unwrap();
    let (x, mask) = Observed::of(&VecEnv::new(*rules, 3, 7).unwrap(), Layout::Compact).tensors(&device);
    net.forward(x, mask).value_logits.into_data().try_to_vec::<f32>().unwrap()
}

fn metric_lines(root: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(root.join("metrics.jsonl")).unwrap();
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn a_run_pretrains_into_checkpoint_zero_and_rl_continues_from_it() {
    let config = TrainConfig::parse(CONFIG).unwrap();
    let rules = config.game.rules;
    let root = stratego_testkit::scratch_path("learner-pretrain");
    let options = TrainOptions { device: None, progress: false };
    let summary = train(&config, NetworkRun::create(&root, &config).unwrap(), false, &options).unwrap();
    assert_eq!(summary.counters.iteration, 1);

    // The imitation network: pretrain.safetensors and checkpoint 0 hold it.
    let zero = root.join("checkpoints/00000000");
    let pretrained = outputs(&root.join("pretrain.safetensors"), &rules);
    assert_eq!(outputs(&zero.join("model.safetensors"), &rules), pretrained);
    assert_eq!(outputs(&zero.join("ema.safetensors"), &rules), pretrained);
    assert_ne!(outputs(&root.join("checkpoints/00000001/model.safetensors"), &rules), pretrained, "RL stepped");
    let counters: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(zero.join("counters.json")).unwrap()).unwrap();
    assert_eq!(counters["iteration"], 0);
    assert!(counters["seconds"].as_f64().unwrap() > 0.0, "the pretraining's time counts");

    // Its epochs: in metrics.jsonl at step 0 (0 = the untrained network,
    // then epoch 1), and in TensorBoard under pretrain/ with every tag.
    let lines = metric_lines(&root);
    let pretrain: Vec<&serde_json::Value> = lines.iter().filter(|l| l.get("pretrain/epoch").is_some()).collect();
    assert_eq!(pretrain.iter().map(|l| l["pretrain/epoch"].as_f64().unwrap()).collect::<Vec<_>>(), vec![0.0, 1.0]);
    assert!(pretrain.iter().all(|l| l["step"] == 0));
    for d in PRETRAIN_DIAGNOSTICS {
        assert!(pretrain[1][d.tag].as_f64().is_some_and(f64::is_finite), "{} in {}", d.tag, pretrain[1]);
    }
    assert!(pretrain[0]["pretrain/heldout_policy_accuracy"].as_f64().is_some());
    let scalars = stratego_runlog::read_scalars(&root.join("pretrain")).unwrap();
    for d in PRETRAIN_DIAGNOSTICS {
        let steps: Vec<u64> = scalars.iter().filter(|s| s.tag == d.tag).map(|s| s.step).collect();
        assert!(steps.contains(&1), "{}: {steps:?}", d.tag);
    }
    assert!(lines.iter().any(|l| l["step"] == 1 && l.get("loss/total").is_some()), "an RL iteration");

    // A run killed before its first RL checkpoint resumes from checkpoint 0:
    // the pretrained weights with a fresh optimizer, not a second pretraining.
    let meta = CheckpointMeta { config: config.model.preset.model(), layout: Layout::Compact, rules, step: 0 };
    let device = stratego_model::device("cpu").unwrap();
    let restored = restore(&zero, &meta, &device.clone().autodiff(), &device, optimizer(&config.learner)).unwrap();
    assert_eq!(restored.counters.iteration, 0);
    assert_eq!(logits(&restored.net.valid(), &rules), pretrained);
    std::fs::remove_dir_all(root.join("checkpoints/00000001")).unwrap();
    let (run, config) = NetworkRun::open(&root).unwrap();
    train(&config, run, true, &options).unwrap();
    let lines = metric_lines(&root);
    let resumed = lines.iter().position(|l| l["event"] == "resumed").expect("a resumed line");
    assert_eq!(lines[resumed]["step"], 0);
    assert!(lines[resumed..].iter().all(|l| l.get("pretrain/epoch").is_none()), "no second pretraining");
    assert!(root.join("checkpoints/00000001/model.safetensors").exists());
    std::fs::remove_dir_all(&root).unwrap();
}
