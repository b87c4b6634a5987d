// Temporary: observation speed before/after the obs table refactor (deleted afterwards).
fn main() {
    for layout in stratego_engine::Layout::ALL {
        let mut best = 0.0f64;
        for _ in 0..5 {
            let (per_s, _) = stratego_engine::speed::measure_observations(layout, if layout == stratego_engine::Layout::Full { 20000 } else { 100000 }, 1);
            best = best.max(per_s);
        }
        println!("{layout}: {best:.0} obs/s");
    }
}
