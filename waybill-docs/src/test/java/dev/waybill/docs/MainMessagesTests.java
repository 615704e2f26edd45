package dev.waybill.docs;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How {@link MainMessages} reads a message's constant text from a call in the source. */
class MainMessagesTests {

	@Test
	void aMessageIsItsLiteralsWithAValueForEachExpression() {
		String call = "logger.warn(\"Waybill relay \" + this.id + \": broker unavailable (\" + reason(ex, \"x\") + \")\", ex);";
		String argument = MainMessages.arguments(call, call.indexOf('(')).get(0);
		assertThat(MainMessages.skeleton(argument)).isEqualTo("Waybill relay \0: broker unavailable (\0x\0)");
	}

	@Test
	void theArgumentsSplitAtTheCallsOwnCommasOnly() {
		String call = "warn(destinations(scope, 1), \"a, b\" + f(x, y), ex)";
		assertThat(MainMessages.arguments(call, call.indexOf('('))).containsExactly("destinations(scope, 1)",
				" \"a, b\" + f(x, y)", " ex");
	}

	@Test
	void escapesAreReadAsTheTextTheyStandFor() {
		assertThat(MainMessages.skeleton("\"Set @Consumer(queue = \\\"...\\\")\"")).isEqualTo("Set @Consumer(queue = \"...\")");
	}

}
