//! Operations over all of a network's weights at once: the global gradient
//! norm clip and the exponential moving average.

use burn::module::{Module, ModuleMapper, ModuleVisitor, Param};
use burn::optim::GradientsParams;
use burn::tensor::Tensor;
use stratego_model::StrategoNet;

struct SquaredNorm<'a> {
    grads: &'a GradientsParams,
    total: f64,
}

impl ModuleVisitor for SquaredNorm<'_> {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        if let Some(g) = self.grads.get::<D>(param.id) {
            self.total += g.powi_scalar(2).sum().into_scalar::<f32>() as f64;
        }
    }
}

struct Scale<'a> {
    grads: &'a mut GradientsParams,
    factor: f32,
}

impl ModuleVisitor for Scale<'_> {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        if let Some(g) = self.grads.remove::<D>(param.id) {
            self.grads.register::<D>(param.id, g.mul_scalar(self.factor));
        }
    }
}

/// Scales the gradients so that their global L2 norm is at most `max_norm`
/// (torch's `clip_grad_norm_`; burn's own clipping works per tensor).
/// Returns the norm before clipping.
pub fn clip_grad_norm(net: &StrategoNet, grads: &mut GradientsParams, max_norm: f32) -> f32 {
    let mut norm = SquaredNorm { grads, total: 0.0 };
    net.visit(&mut norm);
    let norm = norm.total.sqrt() as f32;
    if norm > max_norm && norm.is_finite() {
        net.visit(&mut Scale { grads, factor: max_norm / norm });
    }
    norm
}

/// Every float parameter, flattened, in visiting order.
struct Flatten(Vec<Tensor<1>>);

impl ModuleVisitor for Flatten {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let t = param.val();
        let n = t.shape().num_elements();
        self.0.push(t.reshape([n]));
    }
}

struct Blend {
    current: std::vec::IntoIter<Tensor<1>>,
    decay: f32,
}

impl ModuleMapper for Blend {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let current = self.current.next().expect("the average and the network have the same parameters");
        let decay = self.decay;
        param.map(|average| {
            let dims = average.dims();
            average.mul_scalar(decay) + current.reshape(dims).mul_scalar(1.0 - decay)
        })
    }
}

/// `average <- decay * average + (1 - decay) * current`, parameter by
/// parameter (both on the same plain device, same architecture).
pub fn update_average(average: StrategoNet, current: &StrategoNet, decay: f32) -> StrategoNet {
    let mut flat = Flatten(Vec::new());
    current.visit(&mut flat);
    average.map(&mut Blend { current: flat.0.into_iter(), decay })
}
