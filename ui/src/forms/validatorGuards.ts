// What the window's validator will not run, so that one hostile schema cannot hang the window.
// The server validates every answer itself (and refuses such schemas at ask time where it can);
// the window's check is a courtesy that shows errors early, so where it cannot run safely it
// steps aside instead of freezing the reviewer's window:
//   - a `pattern` (or a `patternProperties` name) that can backtrack catastrophically, e.g.
//     `^(a+)+$` against "aaaa…b": JavaScript's regular expressions backtrack, and one test can run
//     for minutes on a few dozen characters;
//   - a `$ref` cycle that does not pass through a property or an item (`{"allOf": [{"$ref": "#"}]}`):
//     it recurses on the same value forever, whatever the data;
//   - in-place applicators that fan out past a budget (`allOf` of two copies of `allOf` of two…);
//   - data nested deeper than the validator's recursion can take.
import type { Schema } from "@cfworker/json-schema";
import type { JsonValue } from "./jsonValue";

/** Longest pattern the window runs; longer ones are left to the server. */
export const MAX_PATTERN_LENGTH = 500;
/** In-place schema evaluations one value may need (allOf/anyOf/oneOf/not/if/$ref chains). */
export const MAX_IN_PLACE_WORK = 20_000;
/** Deepest data the window validates. */
export const MAX_DATA_DEPTH = 64;

type Quant = { min: number; max: number };
type Item = { quant: Quant | null; group: Seq[] | null; broad: boolean; text: string };
type Seq = Item[];

/**
 * Why `pattern` might backtrack catastrophically, or null when it looks linear. A heuristic on
 * the pattern's structure: a repeated group that contains a repetition (`(a+)+`, `(a*)*`,
 * `(\w+\s?)+`) or an alternation of longer branches (`(a|aa)+`), a backreference, two adjacent
 * unbounded repetitions (`\d+\d+`, `.*.*`), or sheer length. It errs on the side of skipping.
 */
export function unsafePattern(pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH) return `longer than ${MAX_PATTERN_LENGTH} characters`;
  if (/\\[1-9]|\\k</.test(pattern)) return "a backreference";
  let seq: Seq;
  try {
    seq = parse(pattern);
  } catch {
    return null; // Not parseable here: left to RegExp, which reports a bad pattern itself.
  }
  return check(seq, false);
}

function parse(src: string): Seq {
  let i = 0;
  const alternatives = (): Seq[] => {
    const alts: Seq[] = [[]];
    while (i < src.length) {
      const c = src[i];
      if (c === ")") break;
      if (c === "|") {
        alts.push([]);
        i += 1;
        continue;
      }
      let item: Item;
      if (c === "(") {
        i += 1;
        if (src[i] === "?") {
          // (?: (?= (?! (?<= (?<! (?<name>
          i += 1;
          if (src[i] === "<" && src[i + 1] !== "=" && src[i + 1] !== "!") {
            const end = src.indexOf(">", i);
            if (end < 0) throw new Error("bad group");
            i = end + 1;
          } else i += src[i] === "<" ? 2 : 1;
        }
        const group = alternatives();
        if (src[i] !== ")") throw new Error("unclosed group");
        i += 1;
        item = { quant: null, group, broad: false, text: "" };
      } else if (c === "[") {
        const start = i;
        i += 1;
        if (src[i] === "^") i += 1;
        if (src[i] === "]") i += 1;
        while (i < src.length && src[i] !== "]") i += src[i] === "\\" ? 2 : 1;
        if (i >= src.length) throw new Error("unclosed class");
        i += 1;
        item = { quant: null, group: null, broad: src[start + 1] === "^", text: src.slice(start, i) };
      } else if (c === "\\") {
        const e = src[i + 1];
        const start = i;
        i += 2;
        if (e === "u" && src[i] === "{") i = src.indexOf("}", i) + 1;
        else if (e === "p" || e === "P") i = src.indexOf("}", i) + 1;
        item = { quant: null, group: null, broad: /[DWSdws]/.test(e ?? ""), text: src.slice(start, i) };
      } else if (c === "^" || c === "$") {
        i += 1;
        continue;
      } else {
        i += 1;
        item = { quant: null, group: null, broad: c === ".", text: c };
      }
      item.quant = quantifier();
      alts[alts.length - 1].push(item);
    }
    return alts;
  };
  const quantifier = (): Quant | null => {
    const c = src[i];
    let q: Quant | null = null;
    if (c === "*") q = { min: 0, max: Infinity };
    else if (c === "+") q = { min: 1, max: Infinity };
    else if (c === "?") q = { min: 0, max: 1 };
    else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(i));
      if (m) {
        const min = Number(m[1]);
        const max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
        i += m[0].length - 1;
        q = { min, max };
      }
    }
    if (!q) return null;
    i += 1;
    if (src[i] === "?") i += 1; // lazy: backtracks just the same
    return q;
  };
  const top = alternatives();
  if (i < src.length) throw new Error("unbalanced");
  // The whole pattern is one group.
  return [{ quant: null, group: top, broad: false, text: "" }];
}

const repeats = (q: Quant | null) => q !== null && q.max > 1;
const unbounded = (q: Quant | null) => q !== null && q.max === Infinity;

/** Whether the atom `item` could match the character `c` (erring towards yes). */
function mayMatch(item: Item, c: string): boolean {
  const t = item.text;
  if (item.group || t === "." || t.startsWith("[^")) return true;
  if (t.startsWith("\\")) {
    const e = t[1];
    if (e === "d" || e === "D") return /\d/.test(c) === (e === "d");
    if (e === "w" || e === "W") return /\w/.test(c) === (e === "w");
    if (e === "s" || e === "S") return /\s/.test(c) === (e === "s");
    return t.length === 2 ? e === c : true;
  }
  if (!t.startsWith("[")) return t === c;
  // A class: its ranges, then its single characters and escapes.
  let body = t.slice(1, -1);
  const ranges = [...body.matchAll(/(\\?.)-(\\?.)/g)];
  for (const r of ranges) {
    const lo = r[1].replace(/^\\/, "");
    const hi = r[2].replace(/^\\/, "");
    if (c >= lo && c <= hi) return true;
  }
  body = body.replace(/(\\?.)-(\\?.)/g, "");
  if (/\\[dws]/.test(body) && /[\w\s]/.test(c)) return true;
  return body.replace(/\\/g, "").includes(c);
}

/**
 * A repeated group that starts with a literal separator none of its inner repetitions can match
 * (`(-[a-z0-9]+)*`, `(\.\d+)*`): each round begins at a fixed character, so it cannot split the
 * same text in two ways.
 */
function separated(alts: Seq[]): boolean {
  if (alts.length !== 1) return false;
  const [first, ...rest] = alts[0];
  const literal = first && !first.group && !first.broad && first.quant === null && (first.text.length === 1 || (first.text.length === 2 && first.text[0] === "\\" && !/[dwsDWSbB]/.test(first.text[1])));
  if (!literal) return false;
  const c = separatorOf(alts);
  return rest.every((item) => !repeats(item.quant) || (!item.group && !mayMatch(item, c)));
}

/** The literal a separated group starts with. */
function separatorOf(alts: Seq[]): string {
  const t = alts[0][0].text;
  return t.length === 1 ? t : t[1];
}

/** Whether anything inside can match in more than one way per repetition. */
function ambiguousInside(alts: Seq[]): boolean {
  if (separated(alts)) return false;
  // Alternatives of single atoms (`(a|b|c)`) split one character; longer ones can overlap.
  if (alts.length > 1 && alts.some((alt) => alt.length !== 1 || alt[0].quant !== null || alt[0].group !== null)) return true;
  return alts.some((alt) => alt.some((item) => repeats(item.quant) || (item.group !== null && ambiguousInside(item.group))));
}

function check(seq: Seq, insideRepeat: boolean): string | null {
  for (let n = 0; n < seq.length; n++) {
    const item = seq[n];
    if (item.group) {
      if (repeats(item.quant) && ambiguousInside(item.group)) return "a repeated group that can match the same text in several ways";
      for (const alt of item.group) {
        const inner = check(alt, insideRepeat || repeats(item.quant));
        if (inner) return inner;
      }
    }
    const next = seq[n + 1];
    // `[a-z]+(-[a-z]+)*`: the group starts where the run before it cannot go, so they never compete.
    const apart = next?.group && separated(next.group) && !mayMatch(item, separatorOf(next.group));
    if (next && !apart && unbounded(item.quant) && unbounded(next.quant) && (item.broad || next.broad || item.group || next.group)) {
      return "two adjacent unbounded repetitions";
    }
  }
  return null;
}

/** What was disabled in a prepared schema, and whether its validation must be skipped whole. */
export type Guarded = {
  /** Rules left to the server, for the log ("pattern at #/properties/name: a backreference"). */
  skipped: string[];
  /** Set when the schema cannot be validated in the window at all. */
  unsafe: string | null;
};

function isSchemaObject(v: unknown): v is Schema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// Applicators that evaluate the same value again (no step into a property or item).
const IN_PLACE_ONE = ["not", "if", "then", "else"];
const IN_PLACE_LIST = ["allOf", "anyOf", "oneOf"];

/**
 * Makes `copy` (the validator's private copy; `lookup` indexes its subschemas) safe to run:
 * removes unsafe patterns in place, and says whether the whole schema must be skipped.
 */
export function guardSchema(copy: Schema | boolean, lookup: Record<string, Schema | boolean>): Guarded {
  const skipped: string[] = [];
  const all: Schema[] = [];
  // Every subschema object of the copy (a tree: references go through `lookup`).
  const stack: [unknown, string][] = [[copy, "#"]];
  while (stack.length > 0) {
    const [node, at] = stack.pop()!;
    if (Array.isArray(node)) {
      node.forEach((v, n) => stack.push([v, `${at}/${n}`]));
      continue;
    }
    if (!isSchemaObject(node)) continue;
    all.push(node);
    if (typeof node.pattern === "string") {
      const why = unsafePattern(node.pattern);
      if (why) {
        delete node.pattern;
        skipped.push(`pattern at ${at}: ${why}`);
      }
    }
    if (isSchemaObject(node.patternProperties)) {
      const bad = Object.keys(node.patternProperties).map(unsafePattern).find((w) => w);
      if (bad) {
        // Without its patterns the rest of the object rule would misjudge keys: drop it whole.
        delete node.patternProperties;
        delete node.additionalProperties;
        delete node.unevaluatedProperties;
        skipped.push(`patternProperties at ${at}: ${bad}`);
      }
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === "enum" || key === "const" || key === "default" || key === "examples" || key.startsWith("__")) continue;
      if (typeof value === "object" && value !== null) stack.push([value, `${at}/${key}`]);
    }
  }
  return { skipped, unsafe: inPlaceHazard(all, lookup, copy) };
}

/** A `$ref` cycle or a fan-out that evaluates one value without end, or null. */
function inPlaceHazard(all: Schema[], lookup: Record<string, Schema | boolean>, root: Schema | boolean): string | null {
  const children = (node: Schema): Schema[] => {
    const out: unknown[] = [];
    for (const k of IN_PLACE_ONE) out.push(node[k]);
    for (const k of IN_PLACE_LIST) if (Array.isArray(node[k])) out.push(...(node[k] as unknown[]));
    if (isSchemaObject(node.dependentSchemas)) out.push(...Object.values(node.dependentSchemas));
    if (typeof node.__absolute_ref__ === "string") out.push(lookup[node.__absolute_ref__]);
    if (typeof node.__absolute_recursive_ref__ === "string") out.push(lookup[node.__absolute_recursive_ref__] ?? root);
    return out.filter(isSchemaObject);
  };
  const work = new Map<Schema, number>();
  const onPath = new Set<Schema>();
  // Depth-first without recursion (the schema itself may be deep): enter, then leave once the
  // children are done, summing their work.
  for (const start of all) {
    if (work.has(start)) continue;
    const frames: { node: Schema; kids: Schema[]; next: number; sum: number }[] = [{ node: start, kids: children(start), next: 0, sum: 1 }];
    onPath.add(start);
    while (frames.length > 0) {
      const top = frames[frames.length - 1];
      if (top.next < top.kids.length) {
        const kid = top.kids[top.next++];
        if (onPath.has(kid)) return "a $ref cycle that does not pass through a property or an item";
        const known = work.get(kid);
        if (known !== undefined) {
          top.sum += known;
        } else {
          onPath.add(kid);
          frames.push({ node: kid, kids: children(kid), next: 0, sum: 1 });
        }
        if (top.sum > MAX_IN_PLACE_WORK) return "in-place rules that fan out too far";
        continue;
      }
      frames.pop();
      onPath.delete(top.node);
      work.set(top.node, top.sum);
      const parent = frames[frames.length - 1];
      if (parent) {
        parent.sum += top.sum;
        if (parent.sum > MAX_IN_PLACE_WORK) return "in-place rules that fan out too far";
      }
    }
  }
  return null;
}

/** Whether `value` nests deeper than MAX_DATA_DEPTH (counted without recursion). */
export function tooDeep(value: JsonValue): boolean {
  const stack: [JsonValue, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > MAX_DATA_DEPTH) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return false;
}
