package dev.waybill.outbox.rabbit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.impl.AMQImpl;
import org.junit.jupiter.api.Test;

import dev.waybill.inbox.ReceiveEndpoint;
import dev.waybill.inbox.spi.DeliveryProcessor;
import dev.waybill.outbox.MessageType;

/**
 * What an endpoint with partitions declares, and what a broker without the consistent-hash
 * exchange makes of it.
 */
class PartitionTopologyTests {

	private final ReceiveEndpoint billing = ReceiveEndpoint.on("billing")
		.withPartitions(3)
		.withQueueArguments(Map.of("x-queue-type", "quorum"))
		.handle(Charged.class, (message, context) -> {
		});

	@Test
	void aHashExchangeOfTheOrderingKeyFeedsOneSingleActiveQueuePerPartition() throws IOException {
		List<String> calls = new ArrayList<>();
		PartitionTopology.declare(recording(calls, null), this.billing, "topic", "#");

		assertThat(calls).containsExactly(
				"exchangeDeclare [billing.partitions, x-consistent-hash, true, false, {hash-header=waybill-ordering-key}]",
				"exchangeDeclare [test.charged, topic, true]", "exchangeBind [billing.partitions, test.charged, #]",
				"queueDeclare [billing.partition-0, true, false, false, {x-queue-type=quorum, x-single-active-consumer=true}]",
				"queueBind [billing.partition-0, billing.partitions, 1]",
				"queueDeclare [billing.partition-1, true, false, false, {x-queue-type=quorum, x-single-active-consumer=true}]",
				"queueBind [billing.partition-1, billing.partitions, 1]",
				"queueDeclare [billing.partition-2, true, false, false, {x-queue-type=quorum, x-single-active-consumer=true}]",
				"queueBind [billing.partition-2, billing.partitions, 1]",
				"queueDeclare [billing.partitions.members, false, false, true, null]");
		assertThat(PartitionTopology.owner("billing.partition-2")).isEqualTo("billing.partition-2.owner");
	}

	@Test
	void aBrokerWithoutTheConsistentHashExchangeIsRefusedNamingThePlugin() {
		// what RabbitMQ answers an exchange.declare of a type no plugin provides
		IOException unknownType = new IOException(new ShutdownSignalException(true, false,
				new AMQImpl.Connection.Close(AMQP.COMMAND_INVALID,
						"COMMAND_INVALID - unknown exchange type 'x-consistent-hash'", 40, 10),
				null));

		assertThatExceptionOfType(PartitionTopology.PartitionsUnsupportedException.class)
			.isThrownBy(() -> PartitionTopology.declare(recording(new ArrayList<>(), unknownType), this.billing, "topic",
					"#"))
			.satisfies((ex) -> {
				assertThat(ConsumerRefusal.refused(ex)).isTrue();
				assertThat(BrokerErrors.describe(ex)).isEqualTo("PartitionsUnsupportedException: queue 'billing' has 3 "
						+ "partitions, which need RabbitMQ's x-consistent-hash exchange type, and the broker has none "
						+ "(COMMAND_INVALID - unknown exchange type 'x-consistent-hash'): enable its plugin with "
						+ "'rabbitmq-plugins enable rabbitmq_consistent_hash_exchange', or set the endpoint's partitions to 1");
			});
	}

	@Test
	void otherFailuresToDeclareTheExchangeAreLeftAsTheyAre() {
		IOException refused = new IOException(new ShutdownSignalException(false, false,
				new AMQImpl.Channel.Close(AMQP.ACCESS_REFUSED, "ACCESS_REFUSED - no configure permission", 40, 10), null));

		assertThatExceptionOfType(IOException.class)
			.isThrownBy(() -> PartitionTopology.declare(recording(new ArrayList<>(), refused), this.billing, "topic", "#"))
			.isSameAs(refused);
	}

	@Test
	void partitionsOfAnEndpointNotPartitionedByOrderingKeyAreRefused() {
		ReceiveEndpoint unordered = this.billing.withPartitionByOrderingKey(false);
		DeliveryProcessor processor = (DeliveryProcessor) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { DeliveryProcessor.class }, (proxy, method, args) -> null);

		assertThatIllegalArgumentException()
			.isThrownBy(() -> new RabbitReceiveEndpoint(RabbitTransport.builder().build(), processor,
					List.of(unordered)))
			.withMessageStartingWith("Queue 'billing' has 3 partitions but is not partitioned by ordering key");
	}

	/** A channel that records each call, or fails the first with {@code failure}. */
	private static Channel recording(List<String> calls, IOException failure) {
		return (Channel) Proxy.newProxyInstance(PartitionTopologyTests.class.getClassLoader(),
				new Class<?>[] { Channel.class }, (proxy, method, args) -> {
					if (failure != null) {
						throw failure;
					}
					calls.add(method.getName() + " " + Arrays.toString(args));
					return null;
				});
	}

	@MessageType("test.charged")
	record Charged(String order) {
	}

}
