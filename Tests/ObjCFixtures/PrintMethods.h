/* Prints the type encoding GCC's runtime holds for each method of a class, one line each:
   "-<TAB>selector<TAB>types" for instance methods, "+<TAB>selector<TAB>types" for class
   methods. The tests compare them with what clang says of the protocol the class adopts. */
#include <objc/runtime.h>
#include <stdio.h>
#include <stdlib.h>

static void print_method_list(Class cls, const char *sign) {
  unsigned int count = 0;
  Method *methods = class_copyMethodList(cls, &count);
  for (unsigned int i = 0; i < count; i++) {
    printf("%s\t%s\t%s\n", sign, sel_getName(method_getName(methods[i])), method_getTypeEncoding(methods[i]));
  }
  free(methods);
}

/* The method descriptions GCC's runtime holds for a protocol, in the same form with the list
   first: "required-", "required+", "optional-" or "optional+" (types "(null)" when none). */
static void print_protocol(Protocol *protocol) {
  for (int required = 1; required >= 0; required--) {
    for (int instance = 1; instance >= 0; instance--) {
      unsigned int count = 0;
      struct objc_method_description *list =
        protocol_copyMethodDescriptionList(protocol, required, instance, &count);
      for (unsigned int i = 0; i < count; i++) {
        printf("%s%s\t%s\t%s\n", required ? "required" : "optional", instance ? "-" : "+",
               sel_getName(list[i].name), list[i].types ? list[i].types : "(null)");
      }
      free(list);
    }
  }
}

/* The methods of the class named `name` and of its metaclass. */
static int print_methods(const char *name) {
  Class cls = objc_getClass(name);
  if (cls == Nil) {
    fprintf(stderr, "no class %s\n", name);
    return 1;
  }
  print_method_list(cls, "-");
  print_method_list(object_getClass((id)cls), "+");
  return 0;
}
