package dev.waybill.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

class DemoOptionsTests {

	@Test
	void withoutArgumentsTheDemoPlacesAThousandOrdersFromEightThreads() {
		DemoOptions options = DemoOptions.parse();

		assertThat(options).isEqualTo(new DemoOptions(1000, 8, 0.05, 20, Duration.ofSeconds(90), List.of()));
	}

	@Test
	void readsEveryOptionAndPassesPropertiesToTheServices() {
		DemoOptions options = DemoOptions.parse("--orders=500", "--threads=3", "--failure-fraction=0.2",
				"--duplicates=7", "--timeout=30", "--spring.rabbitmq.host=broker", "--waybill.outbox.relay.workers=4");

		assertThat(options).isEqualTo(new DemoOptions(500, 3, 0.2, 7, Duration.ofSeconds(30),
				List.of("--spring.rabbitmq.host=broker", "--waybill.outbox.relay.workers=4")));
		assertThat(DemoOptions.parse("--orders=200").duplicates()).isEqualTo(4);
	}

	@Test
	void badArgumentsAreRefusedNamingTheOption() {
		assertThatIllegalArgumentException().isThrownBy(() -> DemoOptions.parse("--order=5"))
			.withMessageStartingWith("Unknown option --order.");
		assertThatIllegalArgumentException().isThrownBy(() -> DemoOptions.parse("--threads=many"))
			.withMessage("--threads=many is not a whole number");
		assertThatIllegalArgumentException().isThrownBy(() -> DemoOptions.parse("--failure-fraction=1.5"))
			.withMessage("--failure-fraction=1.5 is invalid: it must be between 0 and 1");
		assertThatIllegalArgumentException().isThrownBy(() -> DemoOptions.parse("--orders=10", "--duplicates=10"))
			.withMessage("--duplicates=10 is invalid: it must be between 0 and orders - 1");
		assertThatIllegalArgumentException().isThrownBy(() -> DemoOptions.parse("orders"))
			.withMessageStartingWith("Unexpected argument 'orders': use --name=value.");
	}

}
