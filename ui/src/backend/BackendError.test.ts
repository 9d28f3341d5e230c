import { BackendError, type BackendErrorCode } from "./BackendError";
import type { CommandCode } from "./types";

describe("BackendError", () => {
  it("keeps a command's code, message and field", () => {
    const e = BackendError.from({ code: "invalid_time", message: "`25:00` is not a time like 22:00", field: "quiet_hours.from" });
    expect([e.code, e.message, e.field]).toEqual(["invalid_time", "`25:00` is not a time like 22:00", "quiet_hours.from"]);
  });

  it("reads a server's error body, as JSON text too", () => {
    const body = { error: { code: "already_answered", message: "taken" } };
    expect(BackendError.from(body).code).toBe("already_answered");
    expect(BackendError.from(JSON.stringify(body)).code).toBe("already_answered");
  });

  it("calls anything that is not a refusal a backend failure", () => {
    expect(BackendError.from(new Error("ipc broke"))).toMatchObject({ code: "backend", message: "ipc broke" });
    expect(BackendError.from("plain text")).toMatchObject({ code: "backend", message: "plain text" });
    expect(BackendError.from(undefined)).toMatchObject({ code: "backend" });
  });

  it("admits only the codes Rust defines (this file is type-checked by tsc)", () => {
    // The app's own codes and the contract's both name-check.
    const known: BackendErrorCode[] = ["in_flight", "remote_images_blocked", "keyring", "already_answered", "unavailable", "backend"];
    expect(known).toHaveLength(6);
    // @ts-expect-error: not a code of Rust's CommandCode (if `code` were a plain string, tsc would fail on this directive).
    const misspelt: CommandCode = "remote_image_blocked";
    expect(misspelt).toBeTruthy();
    const e = BackendError.from({ code: "in_flight", message: "on its way" });
    // @ts-expect-error: switching on a code Rust does not return is a type error.
    expect(e.code === "answer_in_flight").toBe(false);
  });
});
