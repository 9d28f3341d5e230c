//! The accounts the reviewer follows: the engine syncs them and keeps their tokens (in the
//! keyring it was given); this adds, renames, tests and removes them, and saves the list to
//! `accounts.json` (never the tokens).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use inbox_client::{Account, AccountList, AppCode, Token};
use inbox_desktop_core::CommandError;
use inbox_desktop_core::urls::{account_id, check_server_url};
use inbox_protocol::ErrorCode;

use super::Desk;
use crate::local_server;
use crate::views::{AccountView, NewAccount};

/// Longest account label accepted from the Settings view.
pub const MAX_LABEL_CHARS: usize = 80;

pub(super) fn accounts_file(data_dir: &Path) -> PathBuf {
    data_dir.join("accounts.json")
}

impl Desk {
    fn is_local(&self, id: &str) -> bool {
        self.follows_local && id == local_server::ACCOUNT_ID
    }

    /// The sidebar's accounts, as the engine has them: the local server first, then by id (the
    /// order `accounts.json` is saved in).
    pub fn account_views(&self) -> Vec<AccountView> {
        let mut views: Vec<AccountView> = self
            .engine
            .accounts()
            .into_iter()
            .map(|account| AccountView {
                local: self.is_local(&account.id),
                id: account.id,
                label: account.label,
                url: account.server_url,
            })
            .collect();
        views.sort_by_key(|view| !view.local);
        views
    }

    /// Follow another server. Its token goes to the keyring through the engine, the only
    /// writer of tokens (in a `--url` run that keyring is in memory, like the run's accounts).
    pub async fn add_account(&self, new: NewAccount) -> Result<AccountView, CommandError> {
        let url = check_server_url(&new.url)?;
        let label = if new.label.trim().is_empty() {
            url.host_str().unwrap_or("Server").to_owned()
        } else {
            new.label.trim().to_owned()
        };
        if new.token.trim().is_empty() {
            return Err(
                CommandError::new(ErrorCode::MissingField, "a token is required")
                    .with_field("token"),
            );
        }
        let taken: HashSet<String> = self.engine.accounts().into_iter().map(|a| a.id).collect();
        let id = account_id(&url, &taken);
        let base = url.as_str().trim_end_matches('/').to_owned();
        let account = Account::new(&id, &label, &base)
            .map_err(|e| CommandError::new(AppCode::InvalidUrl, e.to_string()).with_field("url"))?;
        self.engine
            .add_account(account.clone(), Some(Token::new(new.token.trim())))
            .await?;
        self.save_accounts()?;
        Ok(AccountView {
            id: account.id,
            label: account.label,
            url: account.server_url,
            local: false,
        })
    }

    /// Stop following an account; the engine forgets its token.
    pub async fn remove_account(&self, id: &str) -> Result<(), CommandError> {
        if self.is_local(id) {
            return Err(CommandError::new(
                AppCode::LocalAccount,
                "the local server stays while no other account is set up",
            ));
        }
        self.engine.remove_account(id).await?;
        self.save_accounts()
    }

    /// Give an account another sidebar label; saved with the accounts.
    pub fn rename_account(&self, id: &str, label: &str) -> Result<(), CommandError> {
        let label = label.trim();
        if label.is_empty() {
            return Err(
                CommandError::new(ErrorCode::MissingField, "a name is required")
                    .with_field("label"),
            );
        }
        if label.chars().count() > MAX_LABEL_CHARS {
            return Err(CommandError::new(
                AppCode::TooLong,
                format!("a name has at most {MAX_LABEL_CHARS} characters"),
            )
            .with_field("label"));
        }
        self.engine.relabel(id, label)?;
        self.save_accounts()
    }

    /// One request to the account's server with its token: what it said, or why not.
    pub async fn test_account(&self, id: &str) -> Result<String, CommandError> {
        let api = self.engine.client(id).await?;
        let started = std::time::Instant::now();
        let page = api
            .list(inbox_protocol::StatusFilter::Pending, Some(1), None)
            .await?;
        let ms = started.elapsed().as_millis();
        let more = if page.next_cursor.is_some() {
            " or more"
        } else {
            ""
        };
        Ok(format!(
            "Connected in {ms} ms; {}{more} pending",
            page.items.len()
        ))
    }

    fn save_accounts(&self) -> Result<(), CommandError> {
        if !self.saves_accounts {
            return Ok(());
        }
        let accounts: Vec<Account> = self
            .engine
            .accounts()
            .into_iter()
            .filter(|a| !self.is_local(&a.id))
            .collect();
        AccountList { accounts }
            .save(&accounts_file(&self.data_dir))
            .map_err(|e| CommandError::new(ErrorCode::Unavailable, e.to_string()))
    }
}
