package dev.waybill.outbox.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

/**
 * The JSON serializers an application declares to keep its messages' wire format apart from the
 * mapper its web API is configured with.
 */
class MessageSerializerTests {

	private static final JsonMapper SNAKE_CASE = JsonMapper.builder()
		.propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
		.build();

	@Test
	void jsonWritesWithJacksonsDefaults() throws Exception {
		MessageSerializer serializer = MessageSerializer.json();

		byte[] body = serializer.serialize(new OrderPlaced("o-1", 1200));

		assertThat(new String(body, StandardCharsets.UTF_8)).isEqualTo("{\"orderId\":\"o-1\",\"totalCents\":1200}");
		assertThat(serializer.deserialize(body, OrderPlaced.class)).isEqualTo(new OrderPlaced("o-1", 1200));
		assertThat(serializer.contentType()).isEqualTo("application/json");
	}

	@Test
	void jsonWithAMapperWritesAndReadsWithThatMapper() throws Exception {
		MessageSerializer serializer = MessageSerializer.json(SNAKE_CASE);

		byte[] body = serializer.serialize(new OrderPlaced("o-1", 1200));

		assertThat(new String(body, StandardCharsets.UTF_8)).isEqualTo("{\"order_id\":\"o-1\",\"total_cents\":1200}");
		assertThat(serializer.deserialize(body, OrderPlaced.class)).isEqualTo(new OrderPlaced("o-1", 1200));
	}

	record OrderPlaced(String orderId, long totalCents) {
	}

}
