/** `fleet report`: the comparison as a self-contained HTML page with SVG/PNG charts. */
export { addCompareOptions, resolveCompareOptions, type ResolvedCompare } from './compare-options.js';
export { collectReportData, sampledSteps, type ReportData, type ReportRow } from './data.js';
export { reportCharts, type ChartSpec } from './charts.js';
export { renderSvg, renderPng, namespaceIds } from './render.js';
export { reportHtml, escapeHtml } from './html.js';
export { writeReport } from './write-report.js';
export { contributedSections, sectionCharts, type ReportSection } from './sections.js';
export { sweepReportData } from './from-sweep.js';
export { OP_CLASSES, opClassOf, type OpClass } from './op-class.js';
export { classBreakdownMs, stepClassTimes, type ClassTimes } from './breakdown.js';
export { roofOf, decodeStepFlops, effectiveIntensity, type Roof } from './roofline.js';
