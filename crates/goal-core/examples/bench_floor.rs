//! The floor the hook benchmark compares against: a compiled program that
//! reads its whole stdin and durably rewrites one 4 KB file (write a
//! temporary file, fsync, rename), the least a hook that records state can
//! do. It widens its stdin pipe as the hook does, so a big payload arrives
//! in as few turns for both. `bench/hooks.mjs` builds and runs it.
//!
//! ```text
//! echo '{}' | cargo run --release -p goal-core --example bench_floor -- /tmp/floor.json
//! ```

use std::fs::{self, File};
use std::io::{Read, Write};

fn main() -> std::io::Result<()> {
    let path = std::env::args().nth(1).expect("usage: bench_floor <file>");
    goal_core::buffer::widen_stdin_pipe();
    let mut input = Vec::new();
    std::io::stdin().read_to_end(&mut input)?;
    let mut page = vec![b' '; 4096];
    let n = input.len().min(64);
    page[..n].copy_from_slice(&input[..n]);
    let tmp = format!("{path}.tmp");
    let mut file = File::create(&tmp)?;
    file.write_all(&page)?;
    file.sync_all()?;
    fs::rename(&tmp, &path)?;
    println!("{{}}");
    Ok(())
}
