import { useCallback, type RefObject } from "react";
import type { Account } from "../backend/types";
import { useNow } from "../hooks/useNow";
import type { ListFilter, ListRow } from "../state/inbox";
import { ErrorBoundary } from "../boundary/ErrorBoundary";
import type { FailedQuestions } from "../boundary/renderFailures";
import { ParkBanner } from "./ParkBanner";
import { FailedRow, QuestionRow } from "./QuestionRow";
import { VirtualList } from "./VirtualList";

const ROW_HEIGHT = 60;
const GROUP_HEIGHT = 30;
const PARK_HEIGHT = 30;

type Props = {
  rows: ListRow[];
  accounts: Account[];
  filter: ListFilter;
  onFilter: (f: ListFilter) => void;
  grouped: boolean;
  onGrouped: (on: boolean) => void;
  selectedKey: string | null;
  onSelect: (key: string) => void;
  searchRef: RefObject<HTMLInputElement | null>;
  /** Questions whose content failed to draw: their rows say so. */
  failed: FailedQuestions;
  /** A row failed to draw; the window marks its question. */
  onRowFailure: (key: string) => (reason: string) => void;
};

export function rowDomId(key: string): string {
  return `row-${key.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}

export function QuestionList(props: Props) {
  const { rows, filter, onFilter, selectedKey, onSelect, accounts, grouped } = props;
  const now = useNow();
  const itemKey = useCallback((r: ListRow) => r.key, []);
  const itemHeight = useCallback((r: ListRow) => (r.type === "group" ? GROUP_HEIGHT : r.type === "park" ? PARK_HEIGHT : ROW_HEIGHT), []);
  const showAccount = accounts.length > 1 && !grouped && !filter.account;
  const labelOf = (id: string) => accounts.find((a) => a.id === id)?.label ?? id;

  return (
    <section className="list-pane" aria-label="Questions">
      <div className="list-toolbar">
        <input
          ref={props.searchRef}
          type="search"
          className="search"
          placeholder="Search  /"
          aria-label="Search questions"
          value={filter.search}
          onChange={(e) => onFilter({ ...filter, search: e.target.value })}
          onKeyDown={(e) => {
            if (e.key === "Escape" || e.key === "Enter") {
              e.preventDefault();
              (document.querySelector("[data-testid=question-list]") as HTMLElement | null)?.focus();
            }
          }}
        />
        <div className="list-filters">
          <label>
            <span className="visually-hidden">Format</span>
            <select aria-label="Format" value={filter.format ?? ""} onChange={(e) => onFilter({ ...filter, format: e.target.value || null })}>
              <option value="">All formats</option>
              <option value="confirm">Confirm</option>
              <option value="select">Select</option>
              <option value="text">Text</option>
              <option value="form">Form</option>
              <option value="external">External</option>
            </select>
          </label>
          <label className="check">
            <input type="checkbox" checked={filter.unreadOnly} onChange={(e) => onFilter({ ...filter, unreadOnly: e.target.checked })} />
            Unread
          </label>
          <label className="check">
            <input type="checkbox" checked={grouped} onChange={(e) => props.onGrouped(e.target.checked)} />
            By account
          </label>
        </div>
      </div>
      {rows.length === 0 ? (
        <p className="list-empty">{filter.search || filter.format || filter.unreadOnly ? "No questions match." : "No questions here."}</p>
      ) : (
        <VirtualList
          className="vlist"
          label="Questions"
          items={rows}
          itemKey={itemKey}
          itemHeight={itemHeight}
          activeKey={selectedKey}
          activeDescendant={selectedKey ? rowDomId(selectedKey) : undefined}
          resetKey={`${filter.view}|${filter.account}|${filter.format}|${filter.unreadOnly}|${filter.search}|${grouped}`}
          renderItem={(row) =>
            row.type === "park" ? (
              <ParkBanner park={row.park} compact />
            ) : row.type === "group" ? (
              <div className="group-row" role="presentation">
                <span>{row.label}</span>
                <span className="count">{row.count}</span>
              </div>
            ) : (
              <ErrorBoundary
                key={row.key}
                unit="row"
                subject={row.key}
                onFailure={props.onRowFailure(row.key)}
                fallback={() => <FailedRow rowKey={row.key} id={rowDomId(row.key)} selected={row.key === selectedKey} onSelect={() => onSelect(row.key)} />}
              >
                <QuestionRow
                  card={row.card}
                  id={rowDomId(row.key)}
                  selected={row.key === selectedKey}
                  now={now}
                  accountLabel={showAccount ? labelOf(row.card.account) : null}
                  onSelect={() => onSelect(row.key)}
                  failure={props.failed.get(row.key)}
                />
              </ErrorBoundary>
            )
          }
        />
      )}
    </section>
  );
}
