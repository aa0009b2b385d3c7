/**
 * Import rules `npm run lint` checks (dependency-cruiser): no cycles between files, and no
 * device package importing another device package — a device builds on core, ops and its
 * family, as a third-party backend must (docs/writing-a-backend.md).
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Files import each other in a cycle: move what both need into a module of its own.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-sibling-device',
      severity: 'error',
      comment: 'A device package imports another device package: share through the family package instead.',
      from: { path: '^packages/backend-([^/]+)/' },
      to: { path: '^packages/backend-', pathNot: '^packages/backend-$1/' },
    },
  ],
  options: {
    // Roots are the packages' src/ and test/ folders; a built package (its dist/) or a
    // dependency is a target, never followed.
    doNotFollow: { path: '(^|/)(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.tests.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'types', 'default'], mainFields: ['types', 'main'] },
  },
};
