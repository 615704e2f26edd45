package dev.waybill.outbox.rabbit.autoconfigure;

import static dev.waybill.outbox.test.StartupFailures.invalidProperty;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

import com.rabbitmq.client.ConnectionFactory;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.amqp.autoconfigure.ConnectionFactoryCustomizer;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.amqp.autoconfigure.RabbitConnectionDetails;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.util.ReflectionTestUtils;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.waybill.outbox.rabbit.internal.RabbitTransport;
import dev.waybill.outbox.rabbit.test.FailureAnalyses;
import dev.waybill.outbox.rabbit.test.TcpProxy;
import dev.waybill.outbox.rabbit.test.TestRabbit;
import dev.waybill.outbox.spi.Transport;
import dev.waybill.outbox.spi.TransportChannel;
import dev.waybill.outbox.spi.TransportException;

class WaybillRabbitAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(RabbitAutoConfiguration.class, SslAutoConfiguration.class,
					WaybillRabbitAutoConfiguration.class));

	private final TestRabbit rabbit = TestRabbit.get();

	private TcpProxy proxy;

	@BeforeEach
	void startProxy() {
		this.proxy = this.rabbit.proxy();
	}

	@AfterEach
	void closeProxy() {
		this.proxy.close();
	}

	@Test
	void providesARabbitTransportForALocalBrokerByDefault() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(Transport.class);
			assertThat(context.getBean(Transport.class)).isInstanceOf(RabbitTransport.class)
				.hasToString("RabbitTransport[amqp://guest@localhost:5672/%2F]");
		});
	}

	@Test
	void backsOffWhenTheApplicationDefinesATransport() {
		this.runner.withUserConfiguration(OwnTransport.class).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(Transport.class);
			assertThat(context.getBean(Transport.class)).isNotInstanceOf(RabbitTransport.class);
		});
	}

	@Test
	void connectsWithTheSpringRabbitmqProperties() {
		this.runner.withPropertyValues(spring("host=" + this.proxy.host()), spring("port=" + this.proxy.port()),
				spring("username=" + this.rabbit.username()), spring("password=" + this.rabbit.password()),
				spring("virtual-host=" + this.rabbit.virtualHost()))
			.run(this::publishesThroughTheProxy);
	}

	@Test
	void fallsBackToSpringRabbitmqProperties() {
		this.runner.withPropertyValues(spring("host=" + this.proxy.host()), spring("port=" + this.proxy.port()),
				spring("username=" + this.rabbit.username()), spring("password=" + this.rabbit.password()),
				spring("virtual-host=" + this.rabbit.virtualHost()))
			.run(this::publishesThroughTheProxy);
	}

	@Test
	void fallsBackToSpringRabbitmqPropertiesWithoutBootsRabbitAutoConfiguration() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(WaybillRabbitAutoConfiguration.class))
			.withPropertyValues(spring("addresses=127.0.0.1:" + deadPort() + "," + this.proxy.host() + ":"
					+ this.proxy.port()), spring("address-shuffle-mode=none"), spring("username=" + this.rabbit.username()),
					spring("password=" + this.rabbit.password()), spring("virtual-host=" + this.rabbit.virtualHost()))
			.run(this::publishesThroughTheProxy);
	}

	@Test
	void aRabbitConnectionDetailsBeanReachesTheTransport() {
		this.runner.withBean(RabbitConnectionDetails.class, () -> new RabbitConnectionDetails() {

			@Override
			public List<Address> getAddresses() {
				return List.of(new Address(WaybillRabbitAutoConfigurationTests.this.proxy.host(),
						WaybillRabbitAutoConfigurationTests.this.proxy.port()));
			}

			@Override
			public String getUsername() {
				return WaybillRabbitAutoConfigurationTests.this.rabbit.username();
			}

			@Override
			public String getPassword() {
				return WaybillRabbitAutoConfigurationTests.this.rabbit.password();
			}

			@Override
			public String getVirtualHost() {
				return WaybillRabbitAutoConfigurationTests.this.rabbit.virtualHost();
			}

		})
			.withPropertyValues(spring("host=elsewhere.invalid"), spring("port=1"), spring("username=waybill-nobody"))
			.run(this::publishesThroughTheProxy);
	}

	@Test
	void connectsToALaterOfSpringRabbitmqAddressesWhenTheFirstIsDead() {
		String addresses = spring("addresses=127.0.0.1:" + deadPort() + "," + this.proxy.host() + ":" + this.proxy.port());
		this.runner.withPropertyValues(addresses, spring("address-shuffle-mode=none")).run((context) -> {
			assertThat(context.getBean(Transport.class)).hasToString("RabbitTransport[amqp://guest@127.0.0.1:"
					+ deadPort() + "," + this.proxy.host() + ":" + this.proxy.port() + "/%2F]");
			publishesThroughTheProxy(context);
		});
		// shuffled by default: whatever the order, the live node is found
		for (int i = 0; i < 3; i++) {
			try (TcpProxy live = this.rabbit.proxy()) {
				this.runner.withPropertyValues(spring("addresses=127.0.0.1:" + deadPort() + "," + live.host() + ":"
						+ live.port() + ",127.0.0.1:" + deadPort())).run((context) -> {
							try (TransportChannel channel = context.getBean(Transport.class).openChannel()) {
								assertThat(channel.isOpen()).isTrue();
							}
							assertThat(live.connectionsForwarded()).isEqualTo(1);
						});
			}
		}
	}

	@Test
	void failsOverToTheNextAddressWhenTheConnectedNodeIsLost() {
		try (TcpProxy second = this.rabbit.proxy()) {
			this.runner
				.withPropertyValues(spring("addresses=" + this.proxy.host() + ":" + this.proxy.port() + ","
						+ second.host() + ":" + second.port()), spring("address-shuffle-mode=none"),
						waybill("recovery-interval=200ms"))
				.run((context) -> {
					Transport transport = context.getBean(Transport.class);
					transport.openChannel().close();
					assertThat(this.proxy.connectionsForwarded()).isEqualTo(1);
					assertThat(second.connectionsForwarded()).isZero();
					this.proxy.cut();
					Awaitility.await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
						try (TransportChannel channel = transport.openChannel()) {
							assertThat(channel.isOpen()).isTrue();
						}
					});
					assertThat(second.connectionsForwarded()).isEqualTo(1);
				});
		}
	}

	/** A TLS server on the loopback interface with the self-signed certificate of {@code tls/broker.p12}. */
	private static SSLServerSocket tlsServer() throws Exception {
		SSLContext serverContext = SSLContext.getInstance("TLS");
		KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
		KeyStore keyStore = KeyStore.getInstance("PKCS12");
		try (InputStream in = WaybillRabbitAutoConfigurationTests.class.getResourceAsStream("/tls/broker.p12")) {
			keyStore.load(in, "secret".toCharArray());
		}
		keys.init(keyStore, "secret".toCharArray());
		serverContext.init(keys.getKeyManagers(), null, null);
		return (SSLServerSocket) serverContext.getServerSocketFactory()
			.createServerSocket(0, 1, InetAddress.getLoopbackAddress());
	}

	/** Completes the TLS handshake of every connection until the server closes. */
	private static CompletableFuture<Void> handshakes(SSLServerSocket server) {
		return CompletableFuture.runAsync(() -> {
			while (!server.isClosed()) {
				try (SSLSocket socket = (SSLSocket) server.accept()) {
					socket.startHandshake();
				}
				catch (IOException ex) {
					// a client that rejects the certificate fails its handshake; closed: done
				}
			}
		});
	}

	@Test
	void anSslBundleGivesTheConnectionFactoryItsSslContext() throws Exception {
		try (SSLServerSocket server = tlsServer()) {
			// Serves every connection: Waybill's start-up check connects first, then the test's socket.
			CompletableFuture<Void> served = handshakes(server);
			this.runner
				.withPropertyValues("spring.ssl.bundle.jks.waybill-test.truststore.location=classpath:tls/trust.p12",
						"spring.ssl.bundle.jks.waybill-test.truststore.password=secret",
						"spring.ssl.bundle.jks.waybill-test.truststore.type=PKCS12", spring("ssl.bundle=waybill-test"),
						spring("port=" + server.getLocalPort()), spring("host=127.0.0.1"))
				.run((context) -> {
					ConnectionFactory factory = connectionFactory(context);
					assertThat(factory.isSSL()).isTrue();
					assertThat(context.getBean(Transport.class))
						.hasToString("RabbitTransport[amqps://guest@127.0.0.1:" + server.getLocalPort() + "/%2F]");
					// the bundle's trust store, not the JVM's, trusts the self-signed certificate
					try (SSLSocket socket = (SSLSocket) factory.getSocketFactory()
						.createSocket("127.0.0.1", server.getLocalPort())) {
						socket.startHandshake();
						assertThat(socket.getSession().getPeerPrincipal().getName()).isEqualTo("CN=localhost");
					}
				});
			server.close();
			served.get(10, TimeUnit.SECONDS);
		}
	}

	@Test
	void aBrokerCertificateThatIsNotTrustedFailsStartUpNamingTheTrustSettings() throws Exception {
		try (SSLServerSocket server = tlsServer()) {
			CompletableFuture<Void> served = handshakes(server);
			// TLS without a trust store or bundle: the JVM's trust store, which does not trust the
			// self-signed certificate. Retrying cannot help, as with refused credentials.
			this.runner.withPropertyValues(spring("ssl.enabled=true"), spring("port=" + server.getLocalPort()),
					spring("host=127.0.0.1"))
				.run((context) -> assertThat(context.getStartupFailure()).isNotNull()
					.hasStackTraceContaining("Waybill does not trust the TLS certificate of RabbitMQ at amqps://guest@127.0.0.1:"
							+ server.getLocalPort() + "/%2F")
					.hasStackTraceContaining("spring.rabbitmq.ssl.trust-store or spring.rabbitmq.ssl.bundle"));
			server.close();
			served.get(10, TimeUnit.SECONDS);
		}
	}

	@Test
	void bootsAndWaybillsCustomizersRunOnWaybillsConnectionFactory() {
		this.runner
			.withBean(ConnectionFactoryCustomizer.class, () -> (factory) -> factory.setRequestedChannelMax(42))
			.withBean(WaybillRabbitConnectionFactoryCustomizer.class,
					() -> (factory) -> factory.setRequestedFrameMax(131072))
			.withPropertyValues(spring("requested-heartbeat=7s"))
			.run((context) -> {
				ConnectionFactory factory = connectionFactory(context);
				assertThat(factory.getRequestedChannelMax()).isEqualTo(42);
				assertThat(factory.getRequestedFrameMax()).isEqualTo(131072);
				assertThat(factory.getRequestedHeartbeat()).isEqualTo(7);
				assertThat(factory.isAutomaticRecoveryEnabled()).isTrue();
			});
	}

	@Test
	void springRabbitmqConnectionTimeoutIsTheDefaultOfWaybills() {
		this.runner.withPropertyValues(spring("connection-timeout=3s"))
			.run((context) -> assertThat(connectionFactory(context).getConnectionTimeout()).isEqualTo(3000));
		this.runner.run((context) -> assertThat(connectionFactory(context).getConnectionTimeout()).isEqualTo(5000));
	}

	@Test
	void springRabbitmqCredentialsReachTheBrokerAndItsRefusalFailsStartUpOfAServiceThatOnlyPublishes() {
		this.runner
			.withPropertyValues(spring("host=" + this.proxy.host()), spring("port=" + this.proxy.port()),
					spring("username=waybill-nobody"), spring("password=wrong"))
			.run((context) -> {
				assertThat(context.getStartupFailure()).isNotNull()
					.hasStackTraceContaining("RabbitMQ at amqp://waybill-nobody@" + this.proxy.host() + ":"
							+ this.proxy.port() + "/%2F refused Waybill's connection as user 'waybill-nobody' to virtual host '/'")
					.hasStackTraceContaining("ACCESS_REFUSED");
				// Boot's failure report, not a stack trace
				FailureAnalysis analysis = FailureAnalyses.of(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains("refused Waybill's connection as user 'waybill-nobody'")
					.contains("ACCESS_REFUSED");
				assertThat(analysis.getAction()).contains("Correct the credentials or the virtual host")
					.contains("spring.rabbitmq.*");
			});
	}

	@Test
	void aVirtualHostTheBrokerRefusesFailsStartUpNamingIt() {
		this.runner
			.withPropertyValues(spring("host=" + this.proxy.host()), spring("port=" + this.proxy.port()),
					spring("username=" + this.rabbit.username()), spring("password=" + this.rabbit.password()),
					spring("virtual-host=waybill-no-such-vhost"))
			.run((context) -> assertThat(context.getStartupFailure()).isNotNull()
				.hasStackTraceContaining("refused Waybill's connection as user '" + this.rabbit.username()
						+ "' to virtual host 'waybill-no-such-vhost'")
				.hasStackTraceContaining("NOT_ALLOWED"));
	}

	@Test
	void aBrokerThatCannotBeReachedAtStartUpIsLeftToTheRelay() {
		this.proxy.cut();
		this.runner.withPropertyValues(spring("host=" + this.proxy.host()), spring("port=" + this.proxy.port()),
				spring("username=" + this.rabbit.username()), spring("password=" + this.rabbit.password()),
				spring("virtual-host=" + this.rabbit.virtualHost()))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				this.proxy.restore();
				publishesThroughTheProxy(context);
			});
	}

	@Test
	void springRabbitmqTlsSwitchesToTheTlsPort() {
		this.runner.withPropertyValues(spring("ssl.enabled=true"))
			.run((context) -> assertThat(context.getBean(Transport.class))
				.hasToString("RabbitTransport[amqps://guest@localhost:5671/%2F]"));
	}

	@Test
	void aUriInSpringRabbitmqAddressesWinsOverTheParts() {
		String uri = "amqp://" + this.rabbit.username() + ":" + this.rabbit.password() + "@" + this.proxy.host() + ":"
				+ this.proxy.port() + "/" + (this.rabbit.virtualHost().equals("/") ? "" : this.rabbit.virtualHost());
		// Boot reads the virtual host of an address as it is written, "/" for none
		this.runner.withPropertyValues(spring("addresses=" + uri), spring("host=elsewhere"), spring("port=1"))
			.run(this::publishesThroughTheProxy);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("invalidProperties")
	void anInvalidPropertyFailsStartupNamingIt(String property, String value, String rule, String fix) {
		this.runner.withPropertyValues(property + "=" + value).run((context) -> {
			InvalidConfigurationPropertyValueException failure = invalidProperty(context);
			assertThat(failure.getName()).isEqualTo(property);
			assertThat(failure.getMessage()).contains("Property " + property + " with value '")
				.contains(rule)
				.contains(fix);
		});
	}

	static Stream<Arguments> invalidProperties() {
		String p = "waybill.rabbit.";
		return Stream.of(
				Arguments.of("spring.rabbitmq.port", "70000", "It must be between 1 and 65535", "such as 5672"),
				Arguments.of("spring.rabbitmq.connection-timeout", "0s", "It must be at least 1ms",
						"Set spring.rabbitmq.connection-timeout to a duration such as 5s"),
				Arguments.of(p + "confirm-timeout", "0ms", "It must be at least 1ms", "such as 10s"),
				Arguments.of(p + "recovery-interval", "0s", "It must be at least 1ms", "such as 5s"),
				Arguments.of(p + "topology-check-interval", "-1s", "It must be zero", "such as 30s"),
				Arguments.of(p + "max-outstanding-confirms", "0", "It must be at least 1", "such as 1000"),
				Arguments.of(p + "exchange-type", "x-delayed-message", "It must be fanout, topic, direct or headers",
						"such as fanout"),
				Arguments.of(p + "max-body-size", "0B", "It must be between 1B and 512MB", "such as 128MB"),
				Arguments.of(p + "max-body-size", "1GB", "It must be between 1B and 512MB", "such as 128MB"),
				Arguments.of(p + "frame-max", "4095B", "It must be between 4096B, AMQP's smallest frame_max", "such as 131072B"));
	}

	@Test
	void theFrameMaxBoundsTheHeadersPublishAccepts() {
		this.runner.run((context) -> assertThat(context.getBean(Transport.class).maxHeaderBytes()).isEqualTo(131072 - 8));
		this.runner.withPropertyValues(waybill("frame-max=8KB"))
			.run((context) -> assertThat(context.getBean(Transport.class).maxHeaderBytes()).isEqualTo(8192 - 8));
	}

	@Test
	void aConfirmTimeoutNotShorterThanTheRelayLeaseFailsStartupNamingBoth() {
		this.runner.withPropertyValues("waybill.rabbit.confirm-timeout=60s").run((context) -> {
			InvalidConfigurationPropertyValueException failure = invalidProperty(context);
			assertThat(failure.getName()).isEqualTo("waybill.rabbit.confirm-timeout");
			assertThat(failure.getMessage())
				.contains("It must be shorter than waybill.outbox.relay.lease-duration (12s)")
				.contains("Lower waybill.rabbit.confirm-timeout or raise waybill.outbox.relay.lease-duration");
		});
		this.runner.withPropertyValues("waybill.outbox.relay.lease-duration=30s", "waybill.rabbit.confirm-timeout=45s")
			.run((context) -> assertThat(invalidProperty(context).getMessage())
				.contains("shorter than waybill.outbox.relay.lease-duration (30s)"));
		this.runner.withPropertyValues("waybill.outbox.relay.lease-duration=5m", "waybill.rabbit.confirm-timeout=2m")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aNonPositiveRelayLeaseFailsStartupNamingTheLeaseNotTheConfirmTimeout() {
		for (String lease : new String[] { "-5s", "0s" }) {
			this.runner.withPropertyValues("waybill.outbox.relay.lease-duration=" + lease).run((context) -> {
				InvalidConfigurationPropertyValueException failure = invalidProperty(context);
				assertThat(failure.getName()).isEqualTo("waybill.outbox.relay.lease-duration");
				assertThat(failure.getMessage()).contains("a positive duration").doesNotContain("confirm-timeout");
			});
		}
	}

	@Test
	void theConfigurationMetadataDescribesEveryPropertyWithItsDefault() throws Exception {
		JsonNode metadata;
		try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			metadata = JsonMapper.builder().build().readTree(in);
		}
		List<String> described = new ArrayList<>();
		for (JsonNode property : metadata.get("properties")) {
			assertThat(property.get("description")).as(property.get("name").asString()).isNotNull();
			described.add(property.get("name").asString() + "=" + property.path("defaultValue").asString());
		}
		assertThat(described).contains("waybill.rabbit.confirm-timeout=10s",
				"waybill.rabbit.max-outstanding-confirms=1000", "waybill.rabbit.exchange-type=fanout",
				"waybill.rabbit.max-body-size=128MB", "waybill.rabbit.frame-max=131072B",
				"waybill.rabbit.recovery-interval=5s");
	}

	private void publishesThroughTheProxy(AssertableApplicationContext context) throws TransportException {
		assertThat(context).hasNotFailed();
		Transport transport = context.getBean(Transport.class);
		try (TransportChannel channel = transport.openChannel()) {
			assertThat(channel.isOpen()).isTrue();
		}
		assertThat(this.proxy.connectionsForwarded()).isEqualTo(1);
	}

	private static ConnectionFactory connectionFactory(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		Object factory = ReflectionTestUtils.getField(context.getBean(Transport.class), "connectionFactory");
		return (ConnectionFactory) factory;
	}

	/** A local port nobody listens on. */
	private static int deadPort() {
		return 1;
	}

	private static String waybill(String property) {
		return "waybill.rabbit." + property;
	}

	private static String spring(String property) {
		return "spring.rabbitmq." + property;
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnTransport {

		@Bean
		Transport ownTransport() {
			return new Transport() {

				@Override
				public TransportChannel openChannel() throws TransportException {
					throw new TransportException(TransportException.Kind.UNAVAILABLE, "not connected");
				}

				@Override
				public void close() {
				}

			};
		}

	}

}
