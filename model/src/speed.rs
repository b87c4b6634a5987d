//! Training and inference speed on a device, for `stratego bench model`.

use std::time::Instant;

use burn::optim::{AdamWConfig, GradientsParams};
use burn::tensor::{Device, Int, Tensor, TensorData};
use stratego_engine::{Layout, Ruleset, NUM_ACTIONS};

use crate::config::ModelConfig;
use crate::inputs::Observed;
use crate::loss::loss_terms;
use crate::network::StrategoNet;

/// Samples per second of a forward pass and of a training step (forward,
/// loss, backward, AdamW update), at `batch` observations from real games;
/// the median over `iterations` timed repetitions after one warm-up.
pub fn measure_model(
    config: &ModelConfig,
    layout: Layout,
    batch: usize,
    iterations: usize,
    device: &Device,
) -> (f64, f64) {
    let observed = Observed::after_random_plies(Ruleset::classic(), batch, 1, 20, layout);
    let policy_target = observed.uniform_policy();
    let targets = observed.belief_targets.clone();
    let inputs = |device: &Device| observed.tensors(device);
    let median = |mut times: Vec<f64>| {
        times.sort_by(f64::total_cmp);
        times[times.len() / 2]
    };

    let net = StrategoNet::new(config, layout, device);
    let mut forward = Vec::new();
    for i in 0..=iterations {
        let (x, mask) = inputs(device);
        let start = Instant::now();
        let out = net.forward(x, mask);
        let _ = out.policy_logits.sum().into_scalar::<f32>();
        if i > 0 {
            forward.push(start.elapsed().as_secs_f64());
        }
    }

    let train_device = device.clone().autodiff();
    let mut net = StrategoNet::new(config, layout, &train_device);
    let mut optim = AdamWConfig::new().init();
    let mut train = Vec::new();
    for i in 0..=iterations {
        let (x, mask) = inputs(&train_device);
        let start = Instant::now();
        let out = net.forward(x, mask);
        let target =
            Tensor::<2>::from_data(TensorData::new(policy_target.clone(), [batch, NUM_ACTIONS]), &train_device);
        let outcome = Tensor::<1, Int>::from_data(TensorData::new(vec![2i64; batch], [batch]), &train_device);
        let loss = loss_terms(&out, target, outcome, &targets).total(0.5);
        let grads = GradientsParams::from_grads(loss.backward(), &net);
        net = optim.step(1e-4, net, grads);
        let _ = loss.into_scalar::<f32>();
        if i > 0 {
            train.push(start.elapsed().as_secs_f64());
        }
    }
    (batch as f64 / median(forward), batch as f64 / median(train))
}
