package dev.waybill.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.util.ClassUtils;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.waybill.docs.CodeBlocks.Block;
import dev.waybill.outbox.autoconfigure.WaybillAutoConfiguration;

/**
 * Every YAML block of the README and the guide is configuration a Waybill application accepts:
 * each is loaded as Spring Boot loads {@code application.yml} and checked by the start-up check
 * Waybill registers (an unknown {@code waybill.*} key fails naming the closest known one and the
 * block it is in, a removed key naming its replacement), and each is bound with Spring Boot's
 * {@link Binder}, then validated, to every Waybill {@code @ConfigurationProperties} class the
 * modules' metadata names, so a value of the wrong type or outside its rule fails too. The
 * {@code waybill.*} settings the Java snippets write as strings (a test's properties) pass the same
 * key check. A block that is not an application's configuration (a Liquibase changelog) is marked
 * {@code <!-- unchecked: why -->}.
 */
class YamlBlocksTests {

	/** A {@code waybill.*} setting in a string of a snippet's source, such as a test's properties. */
	private static final Pattern SETTING = Pattern.compile("\"(waybill\\.[a-z0-9.\\[\\]-]+=[^\"]*)\"");

	@Test
	void everyWaybillKeyOfTheYamlBlocksIsKnown() throws IOException {
		assertThat(keysCheck(blocks())).as("the start-up check of waybill.* keys").isNull();
	}

	@Test
	void everyWaybillKeyTheJavaSnippetsSetIsKnown() throws IOException {
		List<String> settings = new ArrayList<>();
		try (Stream<Path> sources = Files.walk(Snippets.TEST_SOURCES.resolve("java/dev/waybill/docs/snippets"))) {
			for (Path source : sources.filter((f) -> f.toString().endsWith(".java")).toList()) {
				Matcher setting = SETTING.matcher(Files.readString(source, StandardCharsets.UTF_8));
				while (setting.find()) {
					settings.add(setting.group(1));
				}
			}
		}
		assertThat(settings).hasSizeGreaterThanOrEqualTo(6);
		Path page = DocumentLinksTests.ROOT.resolve("docs/snippets.md");
		List<String> yaml = new ArrayList<>(List.of("```yaml"));
		settings.forEach((setting) -> yaml.add(setting.replaceFirst("=", ": ")));
		yaml.add("```");
		assertThat(keysCheck(CodeBlocks.read(page, yaml))).as("the start-up check of the snippets' waybill.* settings")
			.isNull();
	}

	@Test
	void aMisspeltKeyInABlockIsNamedWithItsPage() throws IOException {
		Path page = DocumentLinksTests.ROOT.resolve("docs/example.md");
		List<Block> misspelt = CodeBlocks.read(page, List.of("```yaml", "waybill:", "  relay:", "    bach-size: 5", "```"));
		assertThat(keysCheck(misspelt)).hasMessageContaining("'waybill.relay.bach-size' (from Byte array resource [docs/example.md:1]")
			.hasMessageContaining("did you mean 'waybill.outbox.relay.batch-size'?");
	}

	/**
	 * Runs Waybill's start-up check of {@code waybill.*} keys on the blocks, each its own property
	 * source named for its page and line, in one context.
	 * @return the check's failure, {@code null} if none
	 */
	private static RuntimeException keysCheck(List<Block> blocks) throws IOException {
		try (GenericApplicationContext context = new GenericApplicationContext()) {
			StandardEnvironment environment = new StandardEnvironment();
			// Only the pages' blocks: the test JVM's system properties and variables are not the pages'.
			environment.getPropertySources().remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
			environment.getPropertySources().remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
			for (Block block : blocks) {
				sources(block).forEach(environment.getPropertySources()::addLast);
			}
			context.setEnvironment(environment);
			RootBeanDefinition keysCheck = new RootBeanDefinition(WaybillAutoConfiguration.class);
			keysCheck.setFactoryMethodName("waybillPropertyKeysCheck");
			context.registerBeanDefinition("waybillPropertyKeysCheck", keysCheck);
			context.refresh();
			return null;
		}
		catch (RuntimeException ex) {
			return ex;
		}
	}

	@Test
	void everyYamlBlockBindsToWaybillsProperties() throws IOException {
		Set<Class<?>> classes = propertiesClasses();
		assertThat(classes).hasSizeGreaterThanOrEqualTo(9);
		List<String> problems = new ArrayList<>();
		for (Block block : blocks()) {
			Binder binder = new Binder(ConfigurationPropertySources.from(sources(block)));
			for (Class<?> type : classes) {
				try {
					Object properties = BeanUtils.instantiateClass(type);
					binder.bind(prefix(type), Bindable.ofInstance(properties));
					if (properties instanceof InitializingBean validated) {
						validated.afterPropertiesSet();
					}
				}
				catch (Exception ex) {
					problems.add(block.where() + ": " + messages(ex));
				}
			}
		}
		assertThat(problems).isEmpty();
	}

	private static List<Block> blocks() throws IOException {
		return CodeBlocks.all("yaml").stream().filter((b) -> !b.kind().equals("unchecked")).toList();
	}

	private static List<PropertySource<?>> sources(Block block) throws IOException {
		return new YamlPropertySourceLoader().load(block.where(),
				new ByteArrayResource(block.text().getBytes(StandardCharsets.UTF_8), block.where()));
	}

	private static String prefix(Class<?> type) {
		MergedAnnotation<ConfigurationProperties> annotation = MergedAnnotations.from(type).get(ConfigurationProperties.class);
		return annotation.getString("prefix").isEmpty() ? annotation.getString("value") : annotation.getString("prefix");
	}

	private static String messages(Throwable ex) {
		StringBuilder message = new StringBuilder(String.valueOf(ex.getMessage()));
		for (Throwable cause = ex.getCause(); cause != null; cause = cause.getCause()) {
			message.append(" <- ").append(cause.getMessage());
		}
		return message.toString();
	}

	/** The Waybill properties classes the configuration metadata of the class path names. */
	static Set<Class<?>> propertiesClasses() throws IOException {
		Set<Class<?>> classes = new LinkedHashSet<>();
		JsonMapper json = JsonMapper.builder().build();
		ClassLoader loader = YamlBlocksTests.class.getClassLoader();
		for (URL url : Collections.list(loader.getResources("META-INF/spring-configuration-metadata.json"))) {
			try (InputStream in = url.openStream()) {
				for (JsonNode group : json.readTree(in).path("groups")) {
					String type = group.path("type").asString("");
					if (group.path("name").asString("").startsWith("waybill") && type.equals(group.path("sourceType").asString(""))
							&& !group.has("sourceMethod") && ClassUtils.isPresent(type, loader)) {
						classes.add(ClassUtils.resolveClassName(type, loader));
					}
				}
			}
		}
		return classes;
	}

}
