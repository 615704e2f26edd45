package dev.waybill.test;

import org.springframework.test.context.TestContext;
import org.springframework.test.context.support.AbstractTestExecutionListener;

/**
 * Resets the {@link WaybillTestHarness} of a test's application context before each test method,
 * so that each test sees only what happened during it (the context, and its harness, is cached
 * across test classes). Registered in {@code META-INF/spring.factories}.
 *
 * @since 0.1
 */
public class WaybillTestHarnessResetListener extends AbstractTestExecutionListener {

	@Override
	public int getOrder() {
		return 2500; // after dependency injection (2000), before transactions (4000) and SQL scripts (5000)
	}

	@Override
	public void beforeTestMethod(TestContext testContext) {
		if (testContext.hasApplicationContext()) {
			testContext.getApplicationContext().getBeanProvider(WaybillTestHarness.class).ifAvailable(WaybillTestHarness::reset);
		}
	}

}
