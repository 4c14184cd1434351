/** Filter and formula expressions: text -> typed Expr nodes (DESIGN D4/D5). The only jsep user. */
export { parseExpression } from './parse-expression.js';
export { splitFormulas } from './formula-list.js';
export { EXPRESSION_LIMITS, ExpressionError, type Expr, type FormulaText } from './expression-types.js';
