package dev.waybill.outbox.rabbit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Delivery;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import dev.waybill.outbox.rabbit.RabbitHeaders;
import dev.waybill.outbox.rabbit.test.TcpProxy;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.rabbit.test.TestTopology;
import dev.waybill.outbox.rabbit.test.TestTopology.BoundQueue;
import dev.waybill.outbox.spi.OutboxMessage;
import dev.waybill.outbox.spi.TransportChannel;
import dev.waybill.outbox.spi.TransportException;
import dev.waybill.outbox.spi.TransportException.Kind;

class RabbitTransportIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(15);

	private final TestRabbit rabbit = TestRabbit.get();

	private final List<AutoCloseable> resources = new ArrayList<>();

	private final List<TcpProxy> proxies = new ArrayList<>();

	private TestTopology topology;

	@BeforeEach
	void createTopology(TestInfo test) {
		this.topology = this.rabbit.topology(test.getTestMethod().orElseThrow().getName());
	}

	@AfterEach
	void closeAll() throws Exception {
		this.proxies.forEach(TcpProxy::cut); // nothing waits on a paused broker while closing
		Collections.reverse(this.resources);
		for (AutoCloseable resource : this.resources) {
			resource.close();
		}
		this.topology.close();
	}

	@Test
	void aPublishedMessageArrivesWithEveryPropertyMapped() {
		BoundQueue queue = this.topology.exchangeWithQueue("direct", "orders.eu");
		UUID id = UUID.randomUUID();
		Instant sentAt = Instant.parse("2026-11-22T10:15:30Z");
		OutboxMessage message = new OutboxMessage(id, queue.exchange(), "orders.eu", "billing.OrderPlaced",
				"application/json", Map.of("tenant", "acme", "priority", 3, "urgent", true), bytes("{\"total\":12}"),
				"corr-1", "conv-1", "billing-1", sentAt, null);

		assertThat(channel(transport()).publish(message)).succeedsWithin(WAIT);

		Delivery delivery = queue.next();
		assertThat(delivery.getEnvelope().getExchange()).isEqualTo(queue.exchange());
		assertThat(delivery.getEnvelope().getRoutingKey()).isEqualTo("orders.eu");
		assertThat(delivery.getBody()).isEqualTo(bytes("{\"total\":12}"));
		AMQP.BasicProperties properties = delivery.getProperties();
		assertThat(properties.getDeliveryMode()).isEqualTo(2);
		assertThat(properties.getMessageId()).isEqualTo(id.toString());
		assertThat(properties.getType()).isEqualTo("billing.OrderPlaced");
		assertThat(properties.getContentType()).isEqualTo("application/json");
		assertThat(properties.getCorrelationId()).isEqualTo("corr-1");
		assertThat(properties.getTimestamp()).isEqualTo(Date.from(sentAt));
		assertThat(properties.getAppId()).isEqualTo("waybill");
		Map<String, Object> headers = properties.getHeaders();
		assertThat(headers).hasSize(5);
		assertThat(headers.get("tenant")).hasToString("acme");
		assertThat(headers.get("priority")).isEqualTo(3);
		assertThat(headers.get("urgent")).isEqualTo(true);
		assertThat(headers.get(RabbitHeaders.CONVERSATION_ID)).hasToString("conv-1");
		assertThat(headers.get(RabbitHeaders.SOURCE_HOST)).hasToString("billing-1");
	}

	@Test
	void absentIdsAndHostAreNotSent() {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		OutboxMessage message = new OutboxMessage(UUID.randomUUID(), queue.exchange(), "", "billing.OrderPlaced",
				"text/plain", Map.of(), bytes("x"), null, null, null, Instant.now(), null);

		assertThat(channel(transport()).publish(message)).succeedsWithin(WAIT);

		AMQP.BasicProperties properties = queue.next().getProperties();
		assertThat(properties.getCorrelationId()).isNull();
		assertThat(properties.getHeaders()).isEmpty();
	}

	@Test
	void theExchangeOfAMessageTypeIsDeclaredDurableWithTheConfiguredTypeOnFirstUse() throws Exception {
		String type = this.topology.deleteLater(this.topology.uniqueName("type"));
		RabbitTransport transport = transport((builder) -> builder.exchangeType("topic"));
		TransportChannel channel = channel(transport);

		assertThat(channel.publish(message(type, type, "a.b", "first"))).failsWithin(WAIT);

		assertThat(this.topology.exchangeExists(type)).isTrue();
		this.topology.channel().exchangeDeclare(type, "topic", true); // equivalent, so accepted
		BoundQueue queue = this.topology.bind(type, "a.*");
		assertThat(channel.publish(message(type, type, "a.b", "second"))).succeedsWithin(WAIT);
		assertThat(queue.next().getBody()).isEqualTo(bytes("second"));
	}

	@Test
	void messagesOnOneChannelArriveInCallOrder() {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		TransportChannel channel = channel(transport());
		List<CompletableFuture<Void>> confirms = new ArrayList<>();
		for (int i = 0; i < 500; i++) {
			confirms.add(send(channel, queue, Integer.toString(i)));
		}

		assertThat(CompletableFuture.allOf(confirms.toArray(CompletableFuture[]::new))).succeedsWithin(WAIT);
		List<Delivery> deliveries = queue.next(500);
		for (int i = 0; i < 500; i++) {
			assertThat(new String(deliveries.get(i).getBody(), StandardCharsets.UTF_8)).isEqualTo(Integer.toString(i));
		}
	}

	@Test
	void theFutureCompletesOnlyAfterTheBrokerConfirms() {
		Proxied proxied = proxied(UnaryOperator.identity());

		proxied.proxy().pause();
		CompletableFuture<Void> confirm = send(proxied.channel(), proxied.queue(), "held");
		await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> !confirm.isDone());

		proxied.proxy().restore();
		assertThat(confirm).succeedsWithin(WAIT);
		assertThat(proxied.queue().next(2).get(1).getBody()).isEqualTo(bytes("held"));
	}

	@Test
	void anUnroutableMessageFailsAsMessageThoughRabbitMqAcksIt() {
		String exchange = this.topology.exchange("direct");
		TransportChannel channel = channel(transport());

		TransportException failure = failure(channel.publish(message(exchange, "test.message", "nowhere", "lost")));

		assertThat(failure.kind()).isEqualTo(Kind.MESSAGE);
		assertThat(failure).hasMessage(
				"unroutable: no queue bound to exchange '" + exchange + "' with routing key 'nowhere'");
		assertThat(channel.isOpen()).isTrue();
	}

	@Test
	void aNackFailsAsMessage() {
		String exchange = this.topology.exchange("fanout");
		this.topology.queue(exchange, "", Map.of("x-max-length", 1, "x-overflow", "reject-publish"));
		TransportChannel channel = channel(transport());

		assertThat(channel.publish(message(exchange, "test.message", "", "fits"))).succeedsWithin(WAIT);
		TransportException failure = failure(channel.publish(message(exchange, "test.message", "", "queue full")));

		assertThat(failure.kind()).isEqualTo(Kind.MESSAGE);
		// RabbitMQ says nothing of why: the reason names the likely causes for the operator
		assertThat(failure).hasMessageContaining("nacked").hasMessageContaining("full with overflow reject-publish");
	}

	@Test
	void sendingToAMissingExchangeFailsAsMessageAndKeepsTheChannel() {
		String missing = this.topology.uniqueName("missing");
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		TransportChannel channel = channel(transport());

		TransportException failure = failure(channel.publish(message(missing, "test.message", "", "lost")));

		assertThat(failure.kind()).isEqualTo(Kind.MESSAGE);
		assertThat(failure).hasMessage("destination exchange '" + missing + "' does not exist");
		assertThat(this.topology.exchangeExists(missing)).isFalse();
		assertThat(channel.isOpen()).isTrue();
		assertThat(send(channel, queue, "next")).succeedsWithin(WAIT);
	}

	@Test
	void declaringOverAnExchangeOfAnotherTypeFailsAsPermanent() {
		String topic = this.topology.exchange("topic");
		TransportChannel channel = channel(transport());

		TransportException failure = failure(channel.publish(message(topic, topic, "", "body")));

		assertThat(failure.kind()).isEqualTo(Kind.PERMANENT);
		assertThat(failure).hasMessageContaining("PRECONDITION_FAILED").hasMessageContaining("inequivalent arg 'type'");
		assertThat(channel.isOpen()).isTrue();
	}

	@Test
	void anAmqPrefixedExchangeFailsAsPermanent() {
		String reserved = "amq.waybill-test." + UUID.randomUUID();
		TransportChannel channel = channel(transport());

		TransportException failure = failure(channel.publish(message(reserved, reserved, "", "body")));

		assertThat(failure.kind()).isEqualTo(Kind.PERMANENT);
		assertThat(failure).hasMessageContaining("ACCESS_REFUSED");
	}

	@Test
	void anExchangeNameOverAmqpsLimitFailsAsPermanentOnBothPaths() {
		String tooLong = "x".repeat(300);
		TransportChannel channel = channel(transport());

		TransportException declared = failure(channel.publish(message(tooLong, tooLong, "", "body")));
		TransportException sent = failure(channel.publish(message(tooLong, "test.message", "", "body")));

		assertThat(declared.kind()).isEqualTo(Kind.PERMANENT);
		assertThat(declared).hasMessageContaining("is 300 bytes; AMQP allows at most 255");
		assertThat(sent.kind()).isEqualTo(Kind.PERMANENT);
		assertThat(channel.isOpen()).isTrue();
	}

	@Test
	void aBodyOverTheLimitFailsAsPermanentWithoutBeingSent() {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		TransportChannel channel = channel(transport((builder) -> builder.maxBodySize(16)));

		TransportException failure = failure(send(channel, queue, "x".repeat(17)));
		assertThat(send(channel, queue, "x".repeat(16))).succeedsWithin(WAIT);

		assertThat(failure.kind()).isEqualTo(Kind.PERMANENT);
		assertThat(failure).hasMessageContaining("body of 17 bytes is over the broker's limit of 16 bytes");
		assertThat(queue.next().getBody()).hasSize(16); // the first to arrive is the one that fits
	}

	@Test
	void aHeaderTooLargeForAFrameFailsThatMessageAsPermanentAndConfirmsStillMatchTheirMessages() {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		RabbitTransportChannel channel = (RabbitTransportChannel) channel(transport());
		assertThat(send(channel, queue, "warm-up")).succeedsWithin(WAIT);
		queue.next();
		int firstChannel = channel.channelNumber();
		List<CompletableFuture<Void>> before = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			before.add(send(channel, queue, "before-" + i));
		}

		CompletableFuture<Void> tooLarge = channel.publish(withHeader(queue, "big", "x".repeat(300_000)));
		List<CompletableFuture<Void>> after = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			after.add(send(channel, queue, "after-" + i));
		}

		TransportException failure = failure(tooLarge);
		assertThat(failure.kind()).isEqualTo(Kind.PERMANENT);
		assertThat(failure).hasMessageContaining("Content headers exceeded max frame size")
			.hasMessageContaining(RabbitTransport.FRAME_MAX_PROPERTY);
		before.forEach((confirm) -> assertThat(confirm).succeedsWithin(WAIT));
		after.forEach((confirm) -> assertThat(confirm).succeedsWithin(WAIT));
		List<String> bodies = queue.next(40).stream().map((delivery) -> new String(delivery.getBody(), StandardCharsets.UTF_8)).toList();
		assertThat(bodies).doesNotHaveDuplicates().hasSize(40);
		assertThat(queue.drain()).isEmpty();
		assertThat(channel.isOpen()).isTrue();
		assertThat(channel.channelNumber()).isNotEqualTo(firstChannel);
		assertThat(channel.availableWindow()).isEqualTo(1000);
	}

	@Test
	void publishesInFlightWhenAMessageIsRefusedLocallyAreSettledByTheirOwnConfirms() {
		Proxied proxied = proxied(UnaryOperator.identity());
		RabbitTransportChannel channel = proxied.channel();
		proxied.queue().next(); // the warm-up
		proxied.proxy().pause();
		List<CompletableFuture<Void>> inFlight = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			inFlight.add(send(channel, proxied.queue(), "in-flight-" + i));
		}

		CompletableFuture<Void> tooLarge = channel.publish(withHeader(proxied.queue(), "big", "x".repeat(300_000)));

		assertThat(failure(tooLarge).kind()).isEqualTo(Kind.PERMANENT);
		inFlight.forEach((confirm) -> assertThat(confirm).isNotDone());
		proxied.proxy().restore();
		inFlight.forEach((confirm) -> assertThat(confirm).succeedsWithin(WAIT));
		assertThat(send(channel, proxied.queue(), "after")).succeedsWithin(WAIT);
		List<String> bodies = proxied.queue().next(6).stream().map((delivery) -> new String(delivery.getBody(), StandardCharsets.UTF_8)).toList();
		assertThat(bodies).containsExactly("in-flight-0", "in-flight-1", "in-flight-2", "in-flight-3", "in-flight-4", "after");
		assertThat(channel.availableWindow()).isEqualTo(1000);
	}

	@Test
	void theLargestHeaderFollowsTheNegotiatedFrameMax() {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		RabbitTransport transport = transport((builder) -> builder.frameMax(8192));
		assertThat(transport().maxHeaderBytes()).isEqualTo(131072 - 8);
		assertThat(transport.maxHeaderBytes()).isEqualTo(8192 - 8); // configured, before any connection
		TransportChannel channel = channel(transport);

		assertThat(transport.maxHeaderBytes()).isEqualTo(8192 - 8);
		TransportException failure = failure(channel.publish(withHeader(queue, "big", "x".repeat(8192))));
		assertThat(failure.kind()).isEqualTo(Kind.PERMANENT);
		assertThat(failure).hasMessageContaining("> 8192");
		assertThat(send(channel, queue, "fits")).succeedsWithin(WAIT);
	}

	@Test
	void theWindowBoundsUnconfirmedMessages() {
		Proxied proxied = proxied((builder) -> builder.maxOutstandingConfirms(2));
		RabbitTransportChannel channel = proxied.channel();
		List<CompletableFuture<Void>> confirms = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			confirms.add(send(channel, proxied.queue(), "m" + i));
		}
		assertThat(CompletableFuture.allOf(confirms.toArray(CompletableFuture[]::new))).succeedsWithin(WAIT);
		assertThat(proxied.queue().next(51)).hasSize(51);

		proxied.proxy().pause();
		send(channel, proxied.queue(), "one");
		send(channel, proxied.queue(), "two");
		assertThat(channel.availableWindow()).isZero();
		CompletableFuture<CompletableFuture<Void>> third = CompletableFuture
			.supplyAsync(() -> send(channel, proxied.queue(), "three"));
		await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> !third.isDone());

		proxied.proxy().restore();
		assertThat(third).succeedsWithin(WAIT);
		assertThat(third.join()).succeedsWithin(WAIT);
		await().atMost(WAIT).until(() -> channel.availableWindow() == 2);
	}

	@Test
	void aBrokerThatConfirmsNothingWithinTheTimeoutIsUnavailableAndItsChannelIsClosed() {
		Proxied proxied = proxied((builder) -> builder.confirmTimeout(Duration.ofMillis(300)).maxOutstandingConfirms(3));
		RabbitTransportChannel channel = proxied.channel();

		proxied.proxy().pause(); // as a frozen broker, or one blocking publishers on an alarm
		TransportException failure = failure(send(channel, proxied.queue(), "late"));

		assertThat(failure.kind()).isEqualTo(Kind.UNAVAILABLE);
		assertThat(failure).hasMessageContaining("confirmed nothing").hasMessageContaining("within 300ms");
		assertThat(channel.availableWindow()).isEqualTo(3);
		assertThat(channel.isOpen()).as("closed, so that the relay opens another or its circuit").isFalse();
		proxied.proxy().restore();
		TransportChannel next = channel(proxied.transport());
		assertThat(send(next, proxied.queue(), "after")).succeedsWithin(WAIT);
	}

	@Test
	void anOverdueConfirmWhileLaterMessagesWereConfirmedIsTheMessagesFailure() throws Exception {
		RabbitTransport transport = resource(this.rabbit.transport().confirmTimeout(Duration.ofMillis(300)).build());
		StubChannel stub = new StubChannel();
		RabbitTransportChannel channel = new RabbitTransportChannel(stub.channel(), transport);
		CompletableFuture<Void> stuck = channel.publish(message("", "test.message", "some-queue", "stuck"));
		CompletableFuture<Void> later = channel.publish(message("", "test.message", "other-queue", "later"));

		stub.ack(2); // the broker answers, for the later message only (its queue could not take the first)
		channel.expireOverdue(System.nanoTime() + Duration.ofMinutes(1).toNanos());

		assertThat(later).isCompleted();
		TransportException failure = failure(stuck);
		assertThat(failure.kind()).isEqualTo(Kind.MESSAGE);
		assertThat(failure).hasMessageContaining("No publisher confirm").hasMessageContaining("later messages were confirmed");
		assertThat(channel.isOpen()).isTrue();

		CompletableFuture<Void> unanswered = channel.publish(message("", "test.message", "some-queue", "unanswered"));
		channel.expireOverdue(System.nanoTime() + Duration.ofMinutes(1).toNanos());
		assertThat(failure(unanswered).kind()).as("nothing confirmed after it").isEqualTo(Kind.UNAVAILABLE);
		assertThat(channel.isOpen()).isFalse();
	}

	/** An AMQP channel that publishes nowhere and confirms what the test says. */
	private static final class StubChannel {

		private final java.util.concurrent.atomic.AtomicLong nextSeqNo = new java.util.concurrent.atomic.AtomicLong(1);

		private volatile com.rabbitmq.client.ConfirmCallback acks;

		private volatile boolean open = true;

		com.rabbitmq.client.Channel channel() {
			return (com.rabbitmq.client.Channel) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
					new Class<?>[] { com.rabbitmq.client.Channel.class }, (proxy, method, args) -> switch (method.getName()) {
						case "getNextPublishSeqNo" -> this.nextSeqNo.get();
						case "basicPublish" -> {
							this.nextSeqNo.incrementAndGet();
							yield null;
						}
						case "addConfirmListener" -> {
							this.acks = (com.rabbitmq.client.ConfirmCallback) args[0];
							yield null;
						}
						case "getChannelNumber" -> 1;
						case "isOpen" -> this.open;
						case "abort", "close" -> {
							this.open = false;
							yield null;
						}
						case "hashCode" -> System.identityHashCode(proxy);
						case "equals" -> proxy == args[0];
						case "toString" -> "StubChannel";
						default -> null;
					});
		}

		void ack(long seqNo) throws java.io.IOException {
			this.acks.handle(seqNo, false);
		}

	}

	@Test
	void cuttingTheConnectionFailsEveryUnconfirmedMessageAsUnavailableUntilRestored() {
		Proxied proxied = proxied((builder) -> builder.recoveryInterval(Duration.ofMillis(100)));
		BoundQueue queue = proxied.queue();
		TcpProxy proxy = proxied.proxy();
		RabbitTransport transport = proxied.transport();
		TransportChannel channel = proxied.channel();
		proxy.pause();
		List<CompletableFuture<Void>> confirms = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			confirms.add(send(channel, queue, "m" + i));
		}

		proxy.cut();

		for (CompletableFuture<Void> confirm : confirms) {
			assertThat(failure(confirm).kind()).isEqualTo(Kind.UNAVAILABLE);
		}
		await().atMost(WAIT).until(() -> !channel.isOpen());
		assertThat(failure(send(channel, queue, "closed")).kind()).isEqualTo(Kind.UNAVAILABLE);
		assertThatExceptionOfType(TransportException.class).isThrownBy(transport::openChannel)
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.UNAVAILABLE));
		assertThatExceptionOfType(TransportException.class).isThrownBy(transport::probe)
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.UNAVAILABLE));

		proxy.restore();
		TransportChannel reopened = await().atMost(WAIT).ignoreExceptions().until(transport::openChannel, (c) -> true);
		this.resources.add(reopened);
		assertThat(send(reopened, queue, "after")).succeedsWithin(WAIT);
		assertThat(queue.next(2).get(1).getBody()).isEqualTo(bytes("after"));
	}

	@Test
	void checkedExchangesAreCheckedAgainAfterTheConnectionRecovers() throws Exception {
		String exchange = this.topology.exchange("fanout");
		this.topology.queue(exchange, "", Map.of());
		TcpProxy proxy = proxy();
		RabbitTransport transport = transport(proxy, (builder) -> builder.recoveryInterval(Duration.ofMillis(100)));
		TransportChannel channel = channel(transport);
		assertThat(channel.publish(message(exchange, "test.message", "", "checked"))).succeedsWithin(WAIT);

		proxy.cut();
		await().atMost(WAIT).until(() -> !channel.isOpen());
		proxy.restore();
		TransportChannel reopened = await().atMost(WAIT).ignoreExceptions().until(transport::openChannel, (c) -> true);
		this.resources.add(reopened);
		this.topology.channel().exchangeDelete(exchange);

		// Without a fresh check the publish would go out and the broker would close the channel (404).
		TransportException failure = failure(reopened.publish(message(exchange, "test.message", "", "gone")));
		assertThat(failure.kind()).isEqualTo(Kind.MESSAGE);
		assertThat(failure).hasMessage("destination exchange '" + exchange + "' does not exist");
	}

	@Test
	void anExchangeDeletedAfterItsCheckClosesTheChannelAndIsCheckedAgainOnTheNext() throws Exception {
		String exchange = this.topology.exchange("fanout");
		this.topology.queue(exchange, "", Map.of());
		RabbitTransport transport = transport();
		TransportChannel channel = channel(transport);
		assertThat(channel.publish(message(exchange, "test.message", "", "checked"))).succeedsWithin(WAIT);
		this.topology.channel().exchangeDelete(exchange);

		TransportException lost = failure(channel.publish(message(exchange, "test.message", "", "gone")));

		assertThat(lost.kind()).isEqualTo(Kind.UNAVAILABLE);
		assertThat(lost).hasMessageContaining("NOT_FOUND");
		assertThat(channel.isOpen()).isFalse();
		TransportException checked = failure(channel(transport).publish(message(exchange, "test.message", "", "gone")));
		assertThat(checked.kind()).isEqualTo(Kind.MESSAGE);
	}

	@Test
	void closingAChannelFailsItsUnconfirmedMessagesAsUnavailable() {
		Proxied proxied = proxied((builder) -> builder.connectionTimeout(Duration.ofMillis(500)));
		TransportChannel channel = proxied.channel();
		proxied.proxy().pause();
		CompletableFuture<Void> unconfirmed = send(channel, proxied.queue(), "held");

		channel.close();

		assertThat(failure(unconfirmed).kind()).isEqualTo(Kind.UNAVAILABLE);
		assertThat(channel.isOpen()).isFalse();
		TransportException closed = failure(send(channel, proxied.queue(), "after"));
		assertThat(closed.kind()).isEqualTo(Kind.UNAVAILABLE);
		assertThat(closed).hasMessageContaining("closed");
	}

	@Test
	void closingTheTransportFailsUnconfirmedMessagesAndRefusesNewChannels() {
		Proxied proxied = proxied((builder) -> builder.connectionTimeout(Duration.ofMillis(500)));
		proxied.proxy().pause();
		CompletableFuture<Void> unconfirmed = send(proxied.channel(), proxied.queue(), "held");

		proxied.transport().close();

		assertThat(failure(unconfirmed).kind()).isEqualTo(Kind.UNAVAILABLE);
		assertThat(proxied.channel().isOpen()).isFalse();
		assertThatExceptionOfType(TransportException.class).isThrownBy(proxied.transport()::openChannel)
			.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.UNAVAILABLE));
	}

	@Test
	void anInterruptWhileTheWindowIsFullFailsAsUnavailableAndKeepsTheInterrupt() throws Exception {
		Proxied proxied = proxied((builder) -> builder.maxOutstandingConfirms(1));
		proxied.proxy().pause();
		send(proxied.channel(), proxied.queue(), "fills the window");
		AtomicReference<CompletableFuture<Void>> blocked = new AtomicReference<>();
		AtomicBoolean stillInterrupted = new AtomicBoolean();
		Thread publisher = new Thread(() -> {
			blocked.set(send(proxied.channel(), proxied.queue(), "blocked"));
			stillInterrupted.set(Thread.currentThread().isInterrupted());
		});
		publisher.start();
		await().atMost(WAIT).until(() -> publisher.getState() == Thread.State.WAITING);

		publisher.interrupt();
		publisher.join(WAIT.toMillis());

		assertThat(publisher.isAlive()).isFalse();
		assertThat(failure(blocked.get()).kind()).isEqualTo(Kind.UNAVAILABLE);
		assertThat(stillInterrupted).isTrue();
	}

	@Test
	void openingAChannelFailsQuicklyAsUnavailableWhenTheBrokerCannotBeReached() throws IOException {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0)) {
			closedPort = socket.getLocalPort();
		}
		RabbitTransport refused = resource(this.rabbit.transport(this.rabbit.host(), closedPort).build());
		TcpProxy silent = proxy();
		silent.pause();
		RabbitTransport unanswered = resource(
				this.rabbit.transport(silent).connectionTimeout(Duration.ofMillis(500)).build());

		assertTimeoutPreemptively(WAIT, () -> {
			assertThatExceptionOfType(TransportException.class).isThrownBy(refused::openChannel)
				.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.UNAVAILABLE))
				.withMessageContaining("Could not connect to amqp://");
			assertThatExceptionOfType(TransportException.class).isThrownBy(unanswered::openChannel)
				.satisfies((ex) -> assertThat(ex.kind()).isEqualTo(Kind.UNAVAILABLE));
		});
	}

	@Test
	void aTransportNamesItsAddressWithoutThePassword() throws Exception {
		ConnectionFactory factory = new ConnectionFactory();
		factory.setUri("amqp://app:secret@broker.example:5673/orders");
		RabbitTransport transport = resource(RabbitTransport.builder().connectionFactory(factory).build());

		assertThat(transport).hasToString("RabbitTransport[amqp://app@broker.example:5673/orders]");
	}

	private RabbitTransport transport() {
		return transport(UnaryOperator.identity());
	}

	private RabbitTransport transport(UnaryOperator<RabbitTransportBuilder> customizer) {
		return resource(customizer.apply(this.rabbit.transport()).build());
	}

	private RabbitTransport transport(TcpProxy proxy, UnaryOperator<RabbitTransportBuilder> customizer) {
		return resource(customizer.apply(this.rabbit.transport(proxy)).build());
	}

	private TransportChannel channel(RabbitTransport transport) {
		try {
			return resource(transport.openChannel());
		}
		catch (TransportException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private TcpProxy proxy() {
		TcpProxy proxy = resource(this.rabbit.proxy());
		this.proxies.add(proxy);
		return proxy;
	}

	/**
	 * Opens a channel through a proxy and publishes one message on it, so that the exchange is
	 * checked and the connection is up before the test breaks the network.
	 */
	private Proxied proxied(UnaryOperator<RabbitTransportBuilder> customizer) {
		BoundQueue queue = this.topology.exchangeWithQueue("fanout", "");
		TcpProxy proxy = proxy();
		RabbitTransport transport = transport(proxy, customizer);
		RabbitTransportChannel channel = (RabbitTransportChannel) channel(transport);
		assertThat(send(channel, queue, "warm-up")).succeedsWithin(WAIT);
		return new Proxied(queue, proxy, transport, channel);
	}

	private static CompletableFuture<Void> send(TransportChannel channel, BoundQueue queue, String body) {
		return channel.publish(message(queue.exchange(), "test.message", "", body));
	}

	private <T extends AutoCloseable> T resource(T resource) {
		this.resources.add(resource);
		return resource;
	}

	private static OutboxMessage message(String destination, String messageType, String routingKey, String body) {
		return new OutboxMessage(UUID.randomUUID(), destination, routingKey, messageType, "text/plain",
				Map.of("tenant", "acme"), bytes(body), "corr-1", "conv-1", "test-host", Instant.now(), null);
	}

	private static OutboxMessage withHeader(BoundQueue queue, String name, String value) {
		return new OutboxMessage(UUID.randomUUID(), queue.exchange(), "", "test.message", "text/plain",
				Map.of(name, value), bytes("refused"), null, null, null, Instant.now(), null);
	}

	private static TransportException failure(CompletableFuture<Void> confirm) {
		assertThat(confirm).failsWithin(WAIT);
		Throwable failure = confirm.handle((ok, ex) -> ex).join();
		assertThat(failure).isInstanceOf(TransportException.class);
		return (TransportException) failure;
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private record Proxied(BoundQueue queue, TcpProxy proxy, RabbitTransport transport,
			RabbitTransportChannel channel) {

	}

}
