package dev.waybill.docs.snippets;

import java.util.Set;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Keeps the test classes the pages show from running unless they are known to run here: such as
 * docs/testing.md's {@code InvoiceTests}, which needs a virtual host of its own, they are compiled
 * against today's API but only sketched. Registered through {@code junit-platform.properties} and the
 * service loader.
 */
public final class NotRunCondition implements ExecutionCondition {

	/** The pages' test classes that run, against this build's PostgreSQL (see {@link LocalServicesCustomizerFactory}). */
	private static final Set<String> RUN = Set.of("dev.waybill.docs.snippets.testing.PlaceOrderTests");

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		boolean sketch = context.getTestClass()
			.filter((type) -> type.getPackageName().startsWith(NotRunCondition.class.getPackageName() + "."))
			.filter((type) -> !RUN.contains(type.getName()))
			.isPresent();
		return sketch ? ConditionEvaluationResult.disabled("a page's snippet: compiled, not run")
				: ConditionEvaluationResult.enabled("not a sketch");
	}

}
