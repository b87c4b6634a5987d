//! Operations over all of a network's weights at once: the global gradient
//! norm clip and the exponential moving average. Both stay on the device
//! (the clip decides with a tensor mask, not a value read back).

use burn::module::{Module, ModuleMapper, ModuleVisitor, Param};
use burn::optim::GradientsParams;
use burn::tensor::Tensor;
use stratego_model::StrategoNet;

struct SquaredNorm<'a> {
    grads: &'a GradientsParams,
    total: Option<Tensor<1>>,
}

impl ModuleVisitor for SquaredNorm<'_> {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        if let Some(g) = self.grads.get::<D>(param.id) {
            let squares = g.inner().powi_scalar(2).sum();
            self.total = Some(match self.total.take() {
                Some(total) => total + squares,
                None => squares,
            });
        }
    }
}

struct Scale<'a> {
    grads: &'a mut GradientsParams,
    /// `[1]`.
    factor: Tensor<1>,
}

impl ModuleVisitor for Scale<'_> {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        if let Some(g) = self.grads.remove::<D>(param.id) {
            self.grads.register::<D>(param.id, g.mul(self.factor.clone().unsqueeze::<D>()));
        }
    }
}

/// Scales the gradients so that their global L2 norm is at most `max_norm`
/// (torch's `clip_grad_norm_`; burn's own clipping works per tensor); a
/// non-finite norm leaves them as they are. Returns the norm before
/// clipping as a `[1]` tensor on the device, or `None` without gradients.
pub fn clip_grad_norm(net: &StrategoNet, grads: &mut GradientsParams, max_norm: f32) -> Option<Tensor<1>> {
    let mut squared = SquaredNorm { grads, total: None };
    net.visit(&mut squared);
    let norm = squared.total?.sqrt();
    // factor = max_norm / norm where the norm is finite and too large, else
    // exactly 1 (the gradients are multiplied either way: no branch on the host).
    let clip = norm.clone().greater_elem(max_norm).bool_and(norm.clone().is_finite());
    let factor = norm.ones_like().mask_where(clip, norm.full_like(max_norm) / norm.clone());
    net.visit(&mut Scale { grads, factor });
    Some(norm)
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

#[cfg(test)]
mod tests {
    use burn::tensor::Tensor;
    use stratego_engine::{Layout, Ruleset, VecEnv};
    use stratego_model::Device;

    use super::*;

    fn tiny(device: &Device) -> StrategoNet {
        StrategoNet::tiny(Layout::Compact, device)
    }

    /// Every float parameter's values, in visiting order.
    fn values(net: &StrategoNet) -> Vec<f32> {
        let mut flat = Flatten(Vec::new());
        net.visit(&mut flat);
        flat.0.into_iter().flat_map(|t| t.into_data().try_to_vec::<f32>().unwrap()).collect()
    }

    /// Every gradient's values, in the network's visiting order.
    struct GradValues<'a>(&'a GradientsParams, Vec<f32>);

    impl ModuleVisitor for GradValues<'_> {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            if let Some(g) = self.0.get::<D>(param.id) {
                self.1.extend(g.into_data().try_to_vec::<f32>().unwrap());
            }
        }
    }

    fn grad_values(net: &StrategoNet, grads: &GradientsParams) -> Vec<f32> {
        let mut v = GradValues(grads, Vec::new());
        net.visit(&mut v);
        v.1
    }

    /// A network on the autodiff device and the gradients of a loss.
    fn gradients() -> (StrategoNet, GradientsParams) {
        let device = stratego_model::device("cpu").unwrap().autodiff();
        let net = tiny(&device);
        let env = VecEnv::new(Ruleset::classic(), 2, 3).unwrap();
        let (x, mask) = stratego_model::Observed::of(&env, Layout::Compact).tensors(&device);
        let out = net.forward(x, mask);
        let loss = out.value_logits.powi_scalar(2).sum() + out.belief_logits.sum().mul_scalar(0.01);
        let grads = GradientsParams::from_grads(loss.backward(), &net);
        (net, grads)
    }

    fn l2(v: &[f32]) -> f32 {
        v.iter().map(|&x| (x as f64).powi(2)).sum::<f64>().sqrt() as f32
    }

    #[test]
    fn the_clip_returns_the_global_norm_and_scales_to_the_limit() {
        let (net, mut grads) = gradients();
        let before = grad_values(&net, &grads);
        let norm = l2(&before);
        assert!(norm > 0.0);

        // A limit above the norm leaves every gradient exactly as it was.
        let measured = clip_grad_norm(&net, &mut grads, norm * 2.0).unwrap().into_scalar::<f32>();
        assert!((measured - norm).abs() <= 1e-4 * norm, "{measured} vs {norm}");
        assert_eq!(grad_values(&net, &grads), before);

        // Below it, all gradients shrink by one factor to the limit.
        let limit = norm / 4.0;
        clip_grad_norm(&net, &mut grads, limit).unwrap();
        let after = grad_values(&net, &grads);
        assert!((l2(&after) - limit).abs() <= 1e-3 * limit, "{} vs {limit}", l2(&after));
        for (a, b) in after.iter().zip(&before) {
            assert!((a - b * 0.25).abs() <= 1e-4 * b.abs().max(1e-3), "{a} vs {b} / 4");
        }
    }

    #[test]
    fn no_gradients_no_norm() {
        let device = stratego_model::device("cpu").unwrap();
        assert!(clip_grad_norm(&tiny(&device), &mut GradientsParams::new(), 1.0).is_none());
    }

    #[test]
    fn the_average_blends_parameter_by_parameter() {
        let device = stratego_model::device("cpu").unwrap();
        let (average, current) = (tiny(&device), tiny(&device));
        let (a, c) = (values(&average), values(&current));
        assert_ne!(a, c, "two initialisations differ");
        assert_eq!(values(&update_average(average.clone(), &current, 1.0)), a);
        assert_eq!(values(&update_average(average.clone(), &current, 0.0)), c);
        let blended = values(&update_average(average, &current, 0.75));
        for ((x, a), c) in blended.iter().zip(&a).zip(&c) {
            assert!((x - (0.75 * a + 0.25 * c)).abs() < 1e-6);
        }
    }
}
