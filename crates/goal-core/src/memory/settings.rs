//! The product's configuration of the memory layers, in the state folder's
//! `config.json` (`{"memory": {"writes": true, "recall": true}}`): whether the
//! model may store and vote memories, and whether memories and board items
//! reach the model at session start and at each prompt. Only the user changes
//! it (`goal-system memory writes on|off`, `goal-system memory recall on|off`
//! in their own terminal); an agent's tool call never writes the state folder
//! (the guard denies it). Other keys of the file are kept as they are.

use serde_json::{json, Map, Value};

use crate::error::{GoalError, Result};
use crate::store::Store;

const NAME: &str = "config.json";

/// What the user allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// The model may store and vote memories (the user's own command always may).
    pub writes: bool,
    /// Memories at session start and recall lines at each prompt.
    pub recall: bool,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            writes: true,
            recall: true,
        }
    }
}

fn read_config(store: &Store) -> Result<Map<String, Value>> {
    match store.read_side_file("", NAME)? {
        None => Ok(Map::new()),
        Some(bytes) => match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(map)) => Ok(map),
            _ => Err(GoalError::new(
                crate::error::ErrorCode::Corrupt,
                format!(
                    "{} is not a JSON object",
                    store.config.root.join(NAME).display()
                ),
            )),
        },
    }
}

fn from_map(map: &Map<String, Value>) -> Settings {
    let memory = map.get("memory");
    let flag = |key: &str| memory.and_then(|m| m.get(key)).and_then(Value::as_bool);
    let d = Settings::default();
    Settings {
        writes: flag("writes").unwrap_or(d.writes),
        recall: flag("recall").unwrap_or(d.recall),
    }
}

/// The settings; defaults when there is no file. An unreadable file counts
/// as writes off (the safe side for a side effect) and recall on, and is
/// reported in the fault log.
pub fn load(store: &Store) -> Settings {
    match read_config(store) {
        Ok(map) => from_map(&map),
        Err(e) => {
            store.record_fault(
                "memory",
                &format!("settings: {e}; memory writes are off until it is fixed"),
            );
            Settings {
                writes: false,
                recall: true,
            }
        }
    }
}

/// Change the settings (the user's command only: the caller checks).
pub fn set(store: &Store, writes: Option<bool>, recall: Option<bool>) -> Result<Settings> {
    let _lock = store.lock("config")?;
    let mut map = read_config(store)?;
    let memory = map.entry("memory").or_insert_with(|| json!({}));
    if !memory.is_object() {
        *memory = json!({});
    }
    if let Some(w) = writes {
        memory["writes"] = json!(w);
    }
    if let Some(r) = recall {
        memory["recall"] = json!(r);
    }
    let mut bytes = serde_json::to_vec_pretty(&Value::Object(map.clone()))
        .map_err(|e| GoalError::invalid(format!("config cannot be serialized: {e}")))?;
    bytes.push(b'\n');
    store.write_side_file("", NAME, &bytes)?;
    Ok(from_map(&map))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoreConfig;

    #[test]
    fn settings_default_on_persist_and_keep_other_keys() {
        let dir = std::env::temp_dir().join(format!("gs-mem-settings-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = Store::new(StoreConfig::new(dir.join("ss"), dir.join("ss/goal-system")));
        assert_eq!(load(&store), Settings::default());
        std::fs::create_dir_all(&store.config.root).unwrap();
        std::fs::write(store.config.root.join(NAME), r#"{"other": 1}"#).unwrap();
        let s = set(&store, Some(false), None).unwrap();
        assert!(!s.writes && s.recall);
        assert_eq!(load(&store), s);
        let text = std::fs::read_to_string(store.config.root.join(NAME)).unwrap();
        assert!(text.contains("\"other\": 1"), "{text}");
        std::fs::write(store.config.root.join(NAME), "{oops").unwrap();
        assert!(!load(&store).writes, "unreadable: writes off");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
