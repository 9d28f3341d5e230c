// The form renderer (rjsf and the form's own components) is most of the window's code, and only a
// form question needs it: it is a chunk of its own, loaded when a form is first drawn — or ahead of
// that, once the window is idle after its first paint (App.tsx) — so the window starts without it.
import { lazy, Suspense, useState, type ComponentProps, type ComponentType } from "react";
import type { FormAnswer as EagerFormAnswer } from "./FormAnswer";

type Props = ComponentProps<typeof EagerFormAnswer>;
type FormModule = { FormAnswer: ComponentType<Props> };

/**
 * The form answer over `load` (the chunk's import): the component, which shows a loading notice
 * until the chunk is there, and `preload`, which fetches the chunk ahead of the first form. Exported
 * for the loading-state test, which holds the load back; the window uses the instance below.
 */
export function lazyFormAnswer(load: () => Promise<FormModule>) {
  let loaded: FormModule | null = null;
  let loading: Promise<FormModule> | null = null;
  const fetchChunk = (): Promise<FormModule> => {
    loading ??= load().then(
      (m) => (loaded = m),
      (err: unknown) => {
        // Not remembered: the next form tries again (a failure while drawing one shows in its boundary).
        loading = null;
        throw err;
      },
    );
    return loading;
  };
  const Loaded = lazy(() => fetchChunk().then((m) => ({ default: m.FormAnswer })));

  function FormAnswer(props: Props) {
    // Fetched already (preloaded): the form itself, drawn in the render that opens the question;
    // else the lazy one, which suspends until the chunk is there. Chosen once per form, so a form
    // that was waiting is not drawn afresh (losing what was typed) when the chunk arrives.
    const [Form] = useState<ComponentType<Props>>(() => loaded?.FormAnswer ?? Loaded);
    return (
      <Suspense
        fallback={
          <p className="muted form-loading" role="status">
            Loading form…
          </p>
        }
      >
        <Form {...props} />
      </Suspense>
    );
  }

  /** Resolves once the chunk is loaded (true) or its load failed (false); never rejects. */
  const preload = (): Promise<boolean> =>
    fetchChunk().then(
      () => true,
      () => false,
    );

  return { FormAnswer, preload };
}

const formChunk = lazyFormAnswer(() => import("./FormAnswer"));

/** A form question's controls (`./FormAnswer`), drawn from the form chunk. */
export const FormAnswer = formChunk.FormAnswer;

/** Fetches the form chunk ahead of the first form; resolves (true: loaded, false: failed) and never rejects. */
export const preloadFormAnswer = formChunk.preload;
