/**
 * Independent, exact checks (the second opinion): the exact Sylvester Hadamard transform
 * ({@link dev.needlewb.oracle.ExactHadamard}), exact CQ decisions with rounding certificates
 * ({@link dev.needlewb.oracle.ExactCq}, {@link dev.needlewb.oracle.GroupDecision}) and the uint32
 * engram hash ({@link dev.needlewb.oracle.EngramHash}). Plain Java with java.math only; shares no
 * code with the converter or the engine on purpose.
 */
package dev.needlewb.oracle;
