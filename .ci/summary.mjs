// Prints vitest's JSON report as the plain line CI reads: `N passed, N failed[, N skipped]`.
// When the report is missing (the type check or format check failed before vitest ran), says so.
import { existsSync, readFileSync } from 'node:fs'

const [reportPath, status] = process.argv.slice(2)
if (!reportPath || !existsSync(reportPath)) {
  console.log(`no test report: the checks before the tests failed (exit ${status})`)
  console.log('0 passed, 1 failed')
} else {
  const r = JSON.parse(readFileSync(reportPath, 'utf8'))
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0)
  // A test file that fails to load counts as a failure even though it reports no tests.
  const brokenFiles = (r.testResults ?? []).filter(
    (f) => f.status === 'failed' && f.assertionResults?.length === 0,
  )
  const failed = r.numFailedTests + brokenFiles.length
  console.log(`${r.numPassedTests} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : ''))
}
