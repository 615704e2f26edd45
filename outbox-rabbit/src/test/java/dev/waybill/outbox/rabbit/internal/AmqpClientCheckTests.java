package dev.waybill.outbox.rabbit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.impl.ClientVersion;
import com.rabbitmq.client.impl.Frame;
import org.junit.jupiter.api.Test;

/**
 * An older RabbitMQ client (the one Spring Boot's dependency management pins) fails start-up
 * saying which version to pin, instead of consumers that never connect.
 */
class AmqpClientCheckTests {

	@Test
	void theTestedClientPasses() {
		assertThat(AmqpClientCheck.TESTED).isEqualTo(ClientVersion.VERSION);
		assertThat(AmqpClientCheck.problem(Frame.class, ClientVersion.VERSION)).isNull();
		AmqpClientCheck.check();
	}

	@Test
	void anOlderClientFailsNamingTheVersionAndTheFix() {
		// 5.30.0's Frame has a public field type and no getType().
		assertThat(AmqpClientCheck.problem(OldFrame.class, "5.30.0"))
			.contains("com.rabbitmq:amqp-client 5.37.0 (the version waybill-bom pins), but 5.30.0 is on the class path")
			.contains("Frame.getType()")
			.contains("<rabbit-amqp-client.version>5.37.0</rabbit-amqp-client.version>")
			.contains("import dev.waybill:waybill-bom before spring-boot-dependencies");
	}

	static final class OldFrame {

		public final int type = 1;

	}

}
