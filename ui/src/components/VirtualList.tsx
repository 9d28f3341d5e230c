import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from "react";

type Props<T> = {
  items: T[];
  itemKey: (item: T) => string;
  itemHeight: (item: T) => number;
  renderItem: (item: T, index: number) => ReactNode;
  /** Kept in view when it changes. */
  activeKey: string | null;
  /** When this changes (another view or filter) the list starts again at the top. */
  resetKey: string;
  className?: string;
  label: string;
  activeDescendant?: string;
  onKeyDown?: (e: React.KeyboardEvent) => void;
};

/** Rows drawn beyond the viewport on each side, so fast scrolling shows no gaps. */
const OVERSCAN = 8;
/** Used until the container has been measured (and in jsdom, which does no layout). */
const FALLBACK_HEIGHT = 800;

/**
 * A windowed list: only the rows in (and near) the viewport exist in the DOM, so ten thousand
 * questions scroll like ten. When rows arrive or leave, the first visible row stays where it
 * was on screen — the list never jumps under the reader.
 */
export function VirtualList<T>(props: Props<T>) {
  const { items, itemKey, itemHeight, renderItem, activeKey, resetKey } = props;
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(FALLBACK_HEIGHT);
  // Rows that arrived above the viewport while the reader was scrolled down.
  const [newAbove, setNewAbove] = useState(0);

  const { offsets, total, index } = useMemo(() => {
    const offsets = new Array<number>(items.length + 1);
    const index = new Map<string, number>();
    offsets[0] = 0;
    for (let i = 0; i < items.length; i++) {
      offsets[i + 1] = offsets[i] + itemHeight(items[i]);
      index.set(itemKey(items[i]), i);
    }
    return { offsets, total: offsets[items.length], index };
  }, [items, itemHeight, itemKey]);

  const firstAt = useCallback(
    (y: number) => {
      let lo = 0;
      let hi = items.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (offsets[mid + 1] <= y) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    },
    [offsets, items.length],
  );

  // Where the first visible row was, by key, before this render's rows replaced the last ones.
  const anchor = useRef<{ key: string; delta: number; keys: string[]; index: number } | null>(null);
  const lastReset = useRef(resetKey);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (lastReset.current !== resetKey) {
      lastReset.current = resetKey;
      el.scrollTop = 0;
      setScrollTop(0);
      anchor.current = null;
      setNewAbove(0);
      return;
    }
    const a = anchor.current;
    if (a && el.scrollTop > 0) {
      let target = index.get(a.key);
      if (target === undefined) {
        // The anchor row left: hold on to the nearest row after it that is still here.
        const from = a.keys.indexOf(a.key);
        for (let i = from + 1; i < a.keys.length && target === undefined; i++) target = index.get(a.keys[i]);
      }
      if (target !== undefined) {
        const want = Math.max(0, offsets[target] - a.delta);
        if (Math.abs(want - el.scrollTop) >= 1) {
          el.scrollTop = want;
          setScrollTop(want);
        }
        const shift = target - a.index;
        if (shift > 0) setNewAbove((n) => n + shift);
      }
    }
    // The layout effect runs before paint, so the reader never sees the intermediate position.
  }, [offsets, index, resetKey]); // eslint-disable-line react-hooks/exhaustive-deps

  // The first visible row at scroll position `y`, for the next change of rows.
  const rememberAnchor = (y: number) => {
    const first = firstAt(y);
    anchor.current =
      first < items.length
        ? { key: itemKey(items[first]), delta: offsets[first] - y, keys: anchorKeys(items, itemKey, first), index: first }
        : null;
  };

  // After every commit (and after any adjustment above), remember where the reader is.
  useLayoutEffect(() => rememberAnchor(ref.current?.scrollTop ?? 0));

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setViewport(el.clientHeight || FALLBACK_HEIGHT);
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // Keep the active row in view. A layout effect: it runs in the commit that changed the active
  // row, so it can never land late, after the reader has scrolled elsewhere (a passive effect
  // could, on a busy machine, and pulled the list back to the row).
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || activeKey === null) return;
    const i = index.get(activeKey);
    if (i === undefined) return;
    const top = offsets[i];
    const bottom = offsets[i + 1];
    if (top < el.scrollTop) el.scrollTop = top;
    else if (bottom > el.scrollTop + viewport) el.scrollTop = bottom - viewport;
    else return;
    setScrollTop(el.scrollTop);
  }, [activeKey]); // eslint-disable-line react-hooks/exhaustive-deps

  const start = Math.max(0, firstAt(scrollTop) - OVERSCAN);
  const endY = scrollTop + viewport;
  let end = firstAt(endY) + 1 + OVERSCAN;
  end = Math.min(items.length, end);


  const onScroll = (e: React.UIEvent<HTMLDivElement>) => {
    const y = e.currentTarget.scrollTop;
    // Also at scroll time, not only after a commit: when rows change in the same batch as this
    // scroll, the anchor must be where the reader is now, or the list snaps back to where they were.
    rememberAnchor(y);
    setScrollTop(y);
    if (newAbove > 0 && y <= 0) setNewAbove(0);
  };

  const rows: ReactNode[] = [];
  for (let i = start; i < end; i++) {
    const item = items[i];
    rows.push(
      <div key={itemKey(item)} className="vrow" style={{ top: offsets[i], height: itemHeight(item) }}>
        {renderItem(item, i)}
      </div>,
    );
  }

  const toTop = () => {
    if (ref.current) ref.current.scrollTop = 0;
    setScrollTop(0);
    setNewAbove(0);
  };

  return (
    <div className="vlist-frame">
      {newAbove > 0 && (
        <button type="button" className="new-above" onClick={toTop}>
          ↑ {newAbove} new above
        </button>
      )}
    <div
      ref={ref}
      className={props.className}
      onScroll={onScroll}
      role="listbox"
      aria-label={props.label}
      tabIndex={0}
      aria-activedescendant={props.activeDescendant}
      onKeyDown={props.onKeyDown}
      data-testid="question-list"
    >
      <div className="vlist-spacer" style={{ height: total }}>
        {rows}
      </div>
    </div>
    </div>
  );
}

/** The anchor's neighbourhood (a screenful after it), to fall back on if the anchor row leaves. */
function anchorKeys<T>(items: T[], itemKey: (item: T) => string, first: number): string[] {
  const out: string[] = [];
  for (let i = first; i < Math.min(items.length, first + 40); i++) out.push(itemKey(items[i]));
  return out;
}
