import { describe, expect, it } from "vitest";
import cases from "../test/schemas/recursive.json";
import { BoundedSchema, LAZY_KEY, NODE_LIMIT, REF_DEPTH_LIMIT } from "./boundedSchema";

type Node = Record<string, any>;
const schemaOf = (name: keyof typeof cases) => (cases[name] as { schema: unknown }).schema;

/** Every object in `node`, counted without recursion. */
function countNodes(node: unknown): number {
  let n = 0;
  const stack = [node];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== "object" || v === null) continue;
    n += 1;
    stack.push(...Object.values(v));
  }
  return n;
}

describe("bounded $ref expansion", () => {
  for (const name of ["root-self-reference", "mutual-defs", "recursive-oneof", "recursive-oneof-array", "items-parent"] as const) {
    it(`${name}: expands to a finite drawing without a $ref, recursion left lazy`, () => {
      const started = performance.now();
      const bounded = new BoundedSchema(schemaOf(name));
      expect(performance.now() - started).toBeLessThan(200);
      const text = JSON.stringify(bounded.root);
      expect(text).not.toContain('"$ref"');
      expect(text).toContain(LAZY_KEY);
      expect(bounded.truncated).toBe(false);
    });
  }

  it("a self-reference at the root is lazy at once, and one level deeper on expansion", () => {
    const bounded = new BoundedSchema(schemaOf("root-self-reference"));
    const parent = bounded.root.properties!.parent as Node;
    expect(parent.title).toBe("Parent team");
    expect(parent.type).toBe("object");
    const name = BoundedSchema.lazyName(parent)!;
    expect(bounded.reason(name)).toBe("recursive");
    const level2 = bounded.expand(name)!;
    expect(level2.title).toBe("Team");
    expect(Object.keys(level2.properties!)).toEqual(["name", "parent"]);
    expect(BoundedSchema.lazyName(level2.properties!.parent)).toBeDefined();
    // The same object each time: the form sees a stable schema.
    expect(bounded.expand(name)).toBe(level2);
  });

  it("mutual references in $defs expand until the cycle closes", () => {
    const bounded = new BoundedSchema(schemaOf("mutual-defs"));
    const top = bounded.root.properties!.top as Node;
    expect(top.title).toBe("Folder");
    const file = top.properties.file as Node;
    expect(file.title).toBe("File");
    expect(BoundedSchema.lazyName(file.properties.folder)).toBeDefined();
    expect(file.properties.folder.title).toBe("Folder");
  });

  it("a recursive oneOf keeps its alternatives, labelled, with the recursive one lazy", () => {
    const bounded = new BoundedSchema(schemaOf("recursive-oneof-array"));
    const when = bounded.root.properties!.when as Node;
    expect(when.oneOf).toHaveLength(3);
    expect(BoundedSchema.lazyName(when.oneOf[0])).toBeDefined();
    expect(when.oneOf[0].title).toBe("Template");
    expect(when.oneOf[1].type).toBe("array");
    expect(when.oneOf[1].title).toBe("array");
    expect(BoundedSchema.lazyName(when.oneOf[1].items)).toBeDefined();
    expect(when.oneOf[2].title).toBe("null, boolean, number or string");
    // additionalProperties takes the same bounded shape.
    expect((bounded.root.additionalProperties as Node).oneOf).toHaveLength(3);
  });

  it("items that refer to their parent are lazy", () => {
    const bounded = new BoundedSchema(schemaOf("items-parent"));
    const menu = bounded.root.properties!.menu as Node;
    expect(menu.properties.children.type).toBe("array");
    expect(BoundedSchema.lazyName(menu.properties.children.items)).toBeDefined();
  });

  it("stops a long chain of distinct references at the depth limit", () => {
    const defs: Record<string, unknown> = {};
    for (let n = 0; n < 40; n++) defs[`d${n}`] = { type: "object", properties: { next: { $ref: `#/$defs/d${n + 1}` } } };
    defs.d40 = { type: "string" };
    const bounded = new BoundedSchema({ type: "object", properties: { start: { $ref: "#/$defs/d0" } }, $defs: defs });
    let node = bounded.root.properties!.start as Node;
    let depth = 1;
    while (node.properties?.next && !BoundedSchema.lazyName(node.properties.next)) {
      node = node.properties.next;
      depth += 1;
    }
    expect(depth).toBe(REF_DEPTH_LIMIT);
    expect(bounded.reason(BoundedSchema.lazyName(node.properties.next)!)).toBe("depth");
  });

  it("keeps a schema that doubles at every level within the node budget", () => {
    // No recursion at all, but 2^30 nodes if expanded in full.
    const defs: Record<string, unknown> = { l0: { type: "string" } };
    for (let n = 1; n <= 30; n++) defs[`l${n}`] = { type: "object", properties: { a: { $ref: `#/$defs/l${n - 1}` }, b: { $ref: `#/$defs/l${n - 1}` } } };
    const started = performance.now();
    const bounded = new BoundedSchema({ type: "object", properties: { top: { $ref: "#/$defs/l30" } }, $defs: defs });
    expect(performance.now() - started).toBeLessThan(500);
    expect(countNodes(bounded.root)).toBeLessThan(NODE_LIMIT * 4);
    expect(JSON.stringify(bounded.root)).toContain(LAZY_KEY);
  });

  it("leaves an unresolvable reference as a lazy node of its own kind (drawn as a JSON editor)", () => {
    const bounded = new BoundedSchema({ type: "object", properties: { x: { $ref: "#/$defs/missing", title: "X" } } });
    const x = bounded.root.properties!.x as Node;
    expect(bounded.reason(BoundedSchema.lazyName(x)!)).toBe("unresolved");
    expect(bounded.expand(BoundedSchema.lazyName(x)!)).toBeUndefined();
  });

  it("infers the type a schema leaves out", () => {
    const bounded = new BoundedSchema({ properties: { tags: { items: { type: "string" } }, mode: { enum: ["a", "b"] }, n: { const: 3 } } });
    const props = bounded.root.properties as Record<string, Node>;
    expect(bounded.root.type).toBe("object");
    expect(props.tags.type).toBe("array");
    expect(props.mode.type).toBe("string");
    expect(props.n.type).toBe("integer");
  });
});

describe("shapes rewritten for drawing", () => {
  it("folds a nullable pair into one optional control, keeping the field's own title", () => {
    const root = new BoundedSchema({
      type: "object",
      properties: {
        a: { title: "Resolved at", anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
        b: { title: "Pool", oneOf: [{ type: "null" }, { type: "integer", minimum: 1 }] },
        c: { title: "Either", anyOf: [{ type: "string" }, { type: "integer" }] },
      },
    }).root as Node;
    expect(root.properties.a).toEqual({ title: "Resolved at", type: ["string", "null"], format: "date-time" });
    expect(root.properties.b).toEqual({ title: "Pool", type: ["integer", "null"], minimum: 1 });
    // Two real alternatives stay a choice, each labelled.
    expect(root.properties.c.anyOf.map((b: Node) => b.title)).toEqual(["string", "integer"]);
  });

  it("turns enumNames into const/title pairs, patternProperties into a key/value editor, a const into a read-only value", () => {
    const root = new BoundedSchema({
      type: "object",
      properties: {
        room: { type: "string", enum: ["r1", "r2"], enumNames: ["Ada room", "Babbage hall"] },
        jobs: { type: "object", patternProperties: { "^[a-z]+$": { type: "object", properties: { x: { type: "string" } } } }, additionalProperties: false },
        kind: { const: "rolling" },
      },
    }).root as Node;
    expect(root.properties.room).toEqual({ type: "string", oneOf: [{ const: "r1", title: "Ada room" }, { const: "r2", title: "Babbage hall" }] });
    expect(root.properties.jobs).toEqual({ type: "object", additionalProperties: { type: "object", properties: { x: { type: "string" } } } });
    expect(root.properties.kind).toEqual({ const: "rolling", type: "string", readOnly: true });
  });
});
