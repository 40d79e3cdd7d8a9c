import { AnimationError } from '../entry/index.ts'

/**
 * Errors in the status line instead of a broken page: `act` runs a UI action, `report` shows what it threw
 * (also in the console: a refused call, AnimationError, is expected and only warned about; anything else is a
 * bug and logged as an error), `guarded` runs a part of the frame, reporting a message once, not again every
 * frame while it repeats.
 */
export interface Status {
  act(f: () => unknown): void
  /** Shows an error in the status line and the console; returns its message. */
  report(error: unknown, expected?: boolean): string
  guarded(part: string, f: () => void): void
}

export function createStatus(setStatus: (text: string, error?: boolean) => void): Status {
  /** The last message each part of the frame threw. */
  const frameErrors: Record<string, string> = {}
  const report = (error: unknown, expected = error instanceof AnimationError): string => {
    const message = error instanceof Error ? error.message : String(error)
    setStatus(message, true)
    if (expected) console.warn(message)
    else console.error(error)
    return message
  }
  return {
    act(f) {
      try {
        f()
        setStatus('')
      } catch (error) {
        report(error)
      }
    },
    report,
    guarded(part, f) {
      try {
        f()
        frameErrors[part] = ''
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        if (message !== frameErrors[part]) report(error)
        frameErrors[part] = message
      }
    },
  }
}
