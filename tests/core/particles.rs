//! The desktop demo (`examples/particles.rs`) drawn headless: the picture shows every
//! particle where Olympus's buffer says it is.

#[path = "../../examples/particles.rs"]
#[allow(dead_code)]
mod demo;

#[test]
fn particles_demo_draws_each_particle_where_olympus_put_it() {
    let gpu = demo::Gpu::headless().unwrap();
    let dev = gpu.olympus().unwrap();
    let (n, size) = (20_000, 512u32);
    olympus::with_device(&dev, || {
        let mut particles = demo::Particles::new(n, 3).unwrap();
        let start = particles.pos.to_vec::<f32>().unwrap();
        let mut renderer = demo::Renderer::new(&gpu.device, wgpu::TextureFormat::Rgba8Unorm, size);
        // A few frames with trails, then one that clears and draws each point at full
        // brightness, so the lit pixels are exactly the particles' pixels.
        for _ in 0..3 {
            particles.step().unwrap();
            renderer
                .draw(&gpu.device, &gpu.queue, &particles, 0.06, 0.3)
                .unwrap();
        }
        particles.step().unwrap();
        renderer
            .draw(&gpu.device, &gpu.queue, &particles, 1.0, 1.0)
            .unwrap();
        let pixels = renderer.read(&gpu.device, &gpu.queue);
        let pos = particles.pos.to_vec::<f32>().unwrap();

        // The flow moved every particle a little (4 steps of 0.004 at speeds up to 2.7)
        // and kept it in the square.
        let moved = pos.iter().zip(&start).filter(|(a, b)| a != b).count();
        assert!(
            moved > 2 * n * 9 / 10,
            "{moved} of {} coordinates moved",
            2 * n
        );
        for (p, s) in pos.chunks(2).zip(start.chunks(2)) {
            assert!(p.iter().all(|v| (-1.0..1.0).contains(v)), "{p:?}");
            let d = |i: usize| {
                let d = (p[i] - s[i]).abs();
                d.min(2.0 - d) // across the wrap
            };
            assert!(d(0) < 0.05 && d(1) < 0.05, "{s:?} -> {p:?}");
        }

        // The pixels the positions fall in (x right, y up; row 0 at the top), against the
        // lit ones. Rasterizers snap a point to a subpixel grid (8 bits in Vulkan), so a
        // point within 1/128 of a pixel edge may land on either side of it.
        let s = size as f32;
        let near = |c: f32| {
            let lo = ((c - 1.0 / 128.0).floor().max(0.0)) as u32;
            let hi = ((c + 1.0 / 128.0).floor().min(s - 1.0)) as u32;
            lo..=hi
        };
        let lit: std::collections::HashSet<(u32, u32)> = pixels
            .chunks(4)
            .enumerate()
            .filter(|(_, px)| px[..3].iter().any(|&c| c > 0))
            .map(|(i, _)| (i as u32 / size, i as u32 % size))
            .collect();
        let mut candidates = std::collections::HashSet::new();
        let mut missing = 0;
        for p in pos.chunks(2) {
            let (cols, rows) = (near((p[0] + 1.0) / 2.0 * s), near((1.0 - p[1]) / 2.0 * s));
            let mut found = false;
            for r in rows {
                for c in cols.clone() {
                    found |= lit.contains(&(r, c));
                    candidates.insert((r, c));
                }
            }
            missing += usize::from(!found);
        }
        let stray = lit.difference(&candidates).count();
        assert_eq!(
            (missing, stray),
            (0, 0),
            "particles not drawn, pixels lit by none"
        );
        // 20,000 points in 262,144 pixels share about 4% of them.
        assert!(lit.len() > n * 9 / 10, "{} pixels lit", lit.len());
    });
}
