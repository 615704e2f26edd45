package dev.waybill.docs.snippets;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Keeps the test classes the pages show (such as docs/testing.md's {@code PlaceOrderTests}) from
 * running: they are compiled against today's API, but the application they test is only sketched.
 * Registered through {@code junit-platform.properties} and the service loader.
 */
public final class NotRunCondition implements ExecutionCondition {

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		boolean snippet = context.getTestClass()
			.map((type) -> type.getPackageName().startsWith(NotRunCondition.class.getPackageName() + "."))
			.orElse(false);
		return snippet ? ConditionEvaluationResult.disabled("a page's snippet: compiled, not run")
				: ConditionEvaluationResult.enabled("not a snippet");
	}

}
