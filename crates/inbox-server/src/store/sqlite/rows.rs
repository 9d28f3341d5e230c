//! Reading rows back, the same way for every table: records are kept as JSON text in one
//! column, so one record, one column of every row, a count against a cap and a page of
//! `(rank, body)` rows are each decoded here once; a batch prune is run here too.

use rusqlite::types::FromSql;
use rusqlite::{Connection, OptionalExtension, Params, Rows};
use serde::de::DeserializeOwned;

use crate::store::StoreError;

/// The JSON record in the first column of the one row `sql` selects, if there is one.
pub(super) fn record<T: DeserializeOwned>(
    conn: &Connection,
    sql: &str,
    params: impl Params,
) -> Result<Option<T>, StoreError> {
    let body: Option<String> = conn.query_row(sql, params, |row| row.get(0)).optional()?;
    Ok(body.map(|b| serde_json::from_str(&b)).transpose()?)
}

/// The first column of every row `sql` selects, in its order.
pub(super) fn column<T: FromSql>(
    conn: &Connection,
    sql: &str,
    params: impl Params,
) -> Result<Vec<T>, StoreError> {
    let mut stmt = conn.prepare_cached(sql)?;
    let values = stmt
        .query_map(params, |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(values)
}

/// Every JSON record in the first column of the rows `sql` selects, in its order.
pub(super) fn records<T: DeserializeOwned>(
    conn: &Connection,
    sql: &str,
    params: impl Params,
) -> Result<Vec<T>, StoreError> {
    column::<String>(conn, sql, params)?
        .iter()
        .map(|b| serde_json::from_str(b).map_err(StoreError::from))
        .collect()
}

/// Whether the count `sql` selects has reached `limit` (a cap checked in the caller's
/// transaction, so racing writers cannot both pass it).
pub(super) fn at_limit(
    conn: &Connection,
    sql: &str,
    params: impl Params,
    limit: usize,
) -> Result<bool, StoreError> {
    let count: i64 = conn.query_row(sql, params, |row| row.get(0))?;
    Ok(usize::try_from(count).unwrap_or(usize::MAX) >= limit)
}

/// `(rank, record)` rows of a page query (`SELECT rank, body …`), for `store::page`.
pub(super) fn page<T: DeserializeOwned>(
    mut rows: Rows<'_>,
) -> Result<Vec<(i64, Option<T>)>, StoreError> {
    let mut page = Vec::new();
    while let Some(row) = rows.next()? {
        let body: String = row.get(1)?;
        page.push((row.get(0)?, Some(serde_json::from_str(&body)?)));
    }
    Ok(page)
}

/// A batch to prune: `select` picks the ids (`?1` the cut-off, `?2` the batch size) and each
/// of `delete`, in order, removes one id's rows (`?1` the id).
pub(super) struct Prune {
    pub select: &'static str,
    pub delete: &'static [&'static str],
}

/// Delete the batch `prune` selects with `params`, in the caller's transaction; returns the ids.
pub(super) fn prune(
    conn: &Connection,
    prune: &Prune,
    params: impl Params,
) -> Result<Vec<String>, StoreError> {
    let ids: Vec<String> = column(conn, prune.select, params)?;
    for id in &ids {
        for delete in prune.delete {
            conn.execute(delete, [id])?;
        }
    }
    Ok(ids)
}

/// How many rows to read for a page of `limit`: one more tells whether there is a next page.
pub(super) fn page_fetch(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX - 1) + 1
}
