//! `npm run gen`: writes the generated schemas and TypeScript types
//! (`schema/`, `types/`) from the Rust types. `cargo test -p goal-core`
//! fails while a committed copy differs from what this writes.

use std::path::Path;

fn main() -> std::io::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (path, content) in goal_core::schema::generated_files() {
        let target = root.join(path);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&target, content)?;
        println!("wrote {path}");
    }
    Ok(())
}
