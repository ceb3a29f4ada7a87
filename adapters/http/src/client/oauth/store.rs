//! Where tokens, registrations and the DPoP key are kept: in memory, or in a JSON file that
//! survives the process (the `mcp` command's credentials).

use std::collections::HashMap;
use std::io;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

use super::{CredentialStore, Registration, Tokens};

/// A [`CredentialStore`] in memory (the default).
#[derive(Debug, Default)]
pub struct MemoryStore {
    kept: Mutex<Kept>,
}

/// What a store keeps: tokens by endpoint URL, registrations by issuer, the DPoP key.
#[derive(Clone, Default, Serialize, Deserialize)]
struct Kept {
    #[serde(default)]
    tokens: HashMap<String, Tokens>,
    #[serde(default)]
    registrations: HashMap<String, Registration>,
    /// PKCS#8, base64url.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    dpop_key: Option<String>,
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kept")
            .field("tokens", &self.tokens)
            .field("registrations", &self.registrations)
            .field("dpop_key", &self.dpop_key.as_ref().map(|_| "…"))
            .finish()
    }
}

impl Kept {
    fn dpop_key(&self) -> Option<Vec<u8>> {
        self.dpop_key.as_deref().and_then(|key| URL_SAFE_NO_PAD.decode(key).ok())
    }
}

impl CredentialStore for MemoryStore {
    fn tokens(&self, resource: &str) -> Option<Tokens> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).tokens.get(resource).cloned()
    }
    fn save_tokens(&self, resource: &str, tokens: &Tokens) {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).tokens.insert(resource.to_owned(), tokens.clone());
    }
    fn registration(&self, issuer: &str) -> Option<Registration> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).registrations.get(issuer).cloned()
    }
    fn save_registration(&self, issuer: &str, registration: &Registration) {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.registrations.insert(issuer.to_owned(), registration.clone());
    }
    fn dpop_key(&self) -> Option<Vec<u8>> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).dpop_key()
    }
    fn save_dpop_key(&self, pkcs8: &[u8]) {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).dpop_key = Some(URL_SAFE_NO_PAD.encode(pkcs8));
    }
}

/// A [`CredentialStore`] in a JSON file: read when opened, written (whole, through a temporary
/// file renamed over it, readable by its owner only on Unix) after each change. Holds secrets:
/// keep it where only its user can read it.
#[derive(Debug)]
pub struct FileStore {
    path: PathBuf,
    kept: Mutex<Kept>,
}

impl FileStore {
    /// The store in `path` (empty if the file does not exist yet; an error if it is unreadable).
    pub fn open(path: impl Into<PathBuf>) -> io::Result<FileStore> {
        let path = path.into();
        let kept = match std::fs::read(&path) {
            Ok(bytes) => {
                serde_json::from_slice(&bytes).map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))?
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => Kept::default(),
            Err(error) => return Err(error),
        };
        Ok(FileStore { path, kept: Mutex::new(kept) })
    }

    /// Where it is kept.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    fn write(&self, kept: &Kept) {
        if let Err(error) = self.try_write(kept) {
            tracing::warn!(path = %self.path.display(), %error, "credentials not saved");
        }
    }

    fn try_write(&self, kept: &Kept) -> io::Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let temporary = self.path.with_extension("tmp");
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(&temporary)?;
        serde_json::to_writer_pretty(&file, kept).map_err(io::Error::other)?;
        file.sync_all()?;
        std::fs::rename(&temporary, &self.path)
    }
}

impl CredentialStore for FileStore {
    fn tokens(&self, resource: &str) -> Option<Tokens> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).tokens.get(resource).cloned()
    }
    fn save_tokens(&self, resource: &str, tokens: &Tokens) {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.tokens.insert(resource.to_owned(), tokens.clone());
        self.write(&kept);
    }
    fn registration(&self, issuer: &str) -> Option<Registration> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).registrations.get(issuer).cloned()
    }
    fn save_registration(&self, issuer: &str, registration: &Registration) {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.registrations.insert(issuer.to_owned(), registration.clone());
        self.write(&kept);
    }
    fn dpop_key(&self) -> Option<Vec<u8>> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).dpop_key()
    }
    fn save_dpop_key(&self, pkcs8: &[u8]) {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.dpop_key = Some(URL_SAFE_NO_PAD.encode(pkcs8));
        self.write(&kept);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_store_keeps_tokens_and_registrations_across_openings() {
        let dir = std::env::temp_dir().join(format!("mcp-sansio-store-{}", std::process::id()));
        let path = dir.join("credentials.json");
        let _ = std::fs::remove_file(&path);
        let tokens = Tokens {
            access_token: "a".into(),
            refresh_token: Some("r".into()),
            scope: Some("s".into()),
            expires_at: Some(1),
            issuer: "http://as".into(),
            dpop_jkt: Some("k".into()),
        };
        // Tokens kept before DPoP read as bearer tokens.
        let older: Tokens = serde_json::from_str(
            r#"{"access_token":"a","refresh_token":null,"scope":null,"expires_at":null,"issuer":"i"}"#,
        )
        .unwrap();
        assert_eq!(older.dpop_jkt, None);
        let registration =
            Registration { client_id: "c".into(), client_secret: Some("x".into()), token_endpoint_auth_method: None };
        {
            let store = FileStore::open(&path).unwrap();
            assert_eq!(store.tokens("http://h/mcp"), None);
            store.save_tokens("http://h/mcp", &tokens);
            store.save_registration("http://as", &registration);
        }
        let store = FileStore::open(&path).unwrap();
        assert_eq!(store.tokens("http://h/mcp"), Some(tokens));
        assert_eq!(store.registration("http://as"), Some(registration));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        std::fs::write(&path, b"not json").unwrap();
        assert_eq!(FileStore::open(&path).unwrap_err().kind(), io::ErrorKind::InvalidData);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
